# expect: error: T\.Pipelined: the schedule would change the result: group 2 \(stage 0, order 0\) and group 3 after it use .C_local., and the schedule runs the later group.s previous iteration after this one
# expect: note: group 3 \(stage 1, order 1\) starts here
# line: 24
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=128, N=128, K=128, block_M=64, block_N=64, block_K=32, dtype="float16"):

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), "float")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float")
            D_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(D_local)
            # group 3 runs an iteration late and after group 2, which has overwritten what it reads
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2, order=[-1, -1, 0, 1],
                                 stage=[-1, -1, 0, 1], group=[[0], [1], [2], [3]]):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, clear_accum=True)
                for i, j in T.Parallel(block_M, block_N):
                    D_local[i, j] += C_local[i, j]
            T.copy(D_local, C[by * block_M, bx * block_N])

    return main
