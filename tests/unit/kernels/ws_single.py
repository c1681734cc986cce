# One block's (M, K) x (K, N) GEMM on a T.Pipelined K loop of a single iteration, fewer
# than the stages.
import tilelang
import tilelang.language as T

def ws1(M=128, N=64, K=64, dtype="bfloat16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, 1, threads=128) as (bx, by):
            A_s = T.alloc_shared((M, 64), dtype)
            B_s = T.alloc_shared((64, N), dtype)
            acc = T.alloc_fragment((M, N), "float32")
            T.clear(acc)
            for k in T.Pipelined(K // 64, num_stages=3):
                T.copy(A[0, k * 64], A_s)
                T.copy(B[k * 64, 0], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C)
    return main
