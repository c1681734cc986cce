# A schedule whose stage-1 group reads the accumulator that the stage-0 gemm of the next
# iteration overwrites (legal: it runs first, order 0): per-k-block partial products
# summed into D, on ragged tiles.
import tilelang
import tilelang.language as T

def sched(M=200, N=136, K=328, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 128), threads=256) as (bx, by):
            A_s = T.alloc_shared((128, 64), dtype)
            B_s = T.alloc_shared((64, 64), dtype)
            part = T.alloc_fragment((128, 64), "float32")
            D = T.alloc_fragment((128, 64), "float32")
            T.clear(D)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=2, order=[-1, -1, 1, 0],
                                 stage=[-1, -1, 0, 1], group=[[0], [1], [2], [3]]):
                T.copy(A[by * 128, k * 64], A_s)
                T.copy(B[k * 64, bx * 64], B_s)
                T.gemm(A_s, B_s, part, clear_accum=True)
                for i, j in T.Parallel(128, 64):
                    D[i, j] += part[i, j] * 0.5
            T.copy(D, C[by * 128, bx * 64])
    return main
