import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def add(M=100, N=64, block_M=32, block_N=32, in_dtype="float16", out_dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), in_dtype), B: T.Tensor((M, N), in_dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), out_dtype)
            T.copy(A[by * block_M, bx * block_N], A_shared)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = A_shared[i, j] + B[by * block_M + i, bx * block_N + j]
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
