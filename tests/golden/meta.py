# Meta-level evaluation: module constants, compile-time if, macros, range -> T.serial,
# alloc_var, T.if_then_else, T.cumsum, a two-kernel prim_func.
import tilelang
import tilelang.language as T

BLOCK = 16


@tilelang.jit(out_idx=[-1])
def scan(N=64, use_max=True, dtype="float32"):
    nblocks = N // BLOCK

    @T.macro
    def clamp_row(buf, lo):
        for i in T.Parallel(BLOCK):
            buf[i] = T.if_then_else(buf[i] < lo, lo, buf[i])

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), Partial: T.Tensor((nblocks,), dtype),
             B: T.Tensor((N,), dtype)):
        with T.Kernel(nblocks, threads=32) as bx:
            tile = T.alloc_fragment((BLOCK,), dtype)
            acc = T.alloc_var(dtype, init=0)
            T.copy(A[bx * BLOCK], tile)
            clamp_row(tile, -0.5)
            T.cumsum(tile, dim=0)
            for i in range(BLOCK):
                if use_max:
                    acc = T.max(acc, tile[i])
                else:
                    acc += tile[i]
            Partial[bx] = acc
            T.copy(tile, B[bx * BLOCK])
        with T.Kernel(1, threads=32) as _:
            total = T.alloc_var(dtype)
            total = 0
            for b in T.serial(nblocks):
                total += Partial[b]
            B[0] = total

    return main
