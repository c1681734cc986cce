# expect: error: .*(abc|\bM\b)
# args: -D M=abc
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def add_one(M=64, block_M=32, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i in T.Parallel(block_M):
                B[bx * block_M + i] = A[bx * block_M + i] + 1

    return main
