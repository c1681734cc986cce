"""T.Persistent: S blocks walk the MT x NT tiles wave by wave, in groups of G along the
last dimension; each tile records the block that took it (test_lang.py checks the
assignment against TileLang's formula)."""
import tilelang
import tilelang.language as T


@tilelang.jit
def owners(MT, NT, S, G=8):
    @T.prim_func
    def main(Owner: T.Tensor((MT, NT), "int32"), Count: T.Tensor((MT, NT), "int32")):
        with T.Kernel(S, threads=32) as b:
            for bx, by in T.Persistent([MT, NT], S, b, group_size=G):
                Owner[bx, by] = b
                Count[bx, by] = Count[bx, by] + 1
    return main
