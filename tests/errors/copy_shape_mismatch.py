# expect: error: .*T\.copy
# line: 16
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def copy(M=128, N=128, block_M=64, block_N=32, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), dtype)
            A_local = T.alloc_fragment((32, 32), dtype)
            T.copy(A[by * block_M, bx * block_N], A_shared)
            T.copy(A_shared, A_local)
            T.copy(A_local, B[by * block_M, bx * block_N])

    return main
