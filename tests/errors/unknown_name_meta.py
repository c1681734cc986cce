# expect: error: .*\bblock_m\b
# line: 9
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def copy(M=64, block_M=32, dtype="float32"):
    grid = M // block_m

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(grid, threads=128) as bx:
            for i in T.Parallel(block_M):
                B[bx * block_M + i] = A[bx * block_M + i]

    return main
