# expect: error: .*T\.use_swizzle: order must be "row" or "column"
# expect: not string "diagonal"
# line: 15
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def add_one(M=64, N=64, block=32, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            # TileLang's orders are "row" and "column"
            T.use_swizzle(4, order="diagonal")
            for i, j in T.Parallel(block, block):
                B[by * block + i, bx * block + j] = A[by * block + i, bx * block + j] + 1

    return main
