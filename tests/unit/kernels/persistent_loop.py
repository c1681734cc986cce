# T.Persistent: 5 blocks walk 6 x 9 tiles of a copy in groups of 2 along the last
# dimension (the simulation checks the CUDA target against the C target).
import tilelang
import tilelang.language as T

def persistent_loop(MT=6, NT=9, S=5, bm=16, bn=16):
    @T.prim_func
    def main(A: T.Tensor((MT * bm, NT * bn), "float32"), B: T.Tensor((MT * bm, NT * bn), "float32")):
        with T.Kernel(S, threads=128) as b:
            s = T.alloc_shared((bm, bn), "float32")
            for bx, by in T.Persistent([MT, NT], S, b, group_size=2):
                T.copy(A[bx * bm, by * bn], s)
                for i, j in T.Parallel(bm, bn):
                    s[i, j] = s[i, j] + 1.0
                T.copy(s, B[bx * bm, by * bn])
    return main
