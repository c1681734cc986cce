# expect: error: 'scale' needs a value for its parameters n, block, which have no default: pass them with -D n=... -D block=...
# line: 8
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(n, block, factor: float = 2.0, dtype: T.dtype = T.float32):
    @T.prim_func
    def main(A: T.Tensor((n,), dtype), B: T.Tensor((n,), dtype)):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * factor
    return main
