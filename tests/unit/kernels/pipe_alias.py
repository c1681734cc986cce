# Pipeline stages reuse the bytes of a buffer read just before: a barrier before the
# prologue.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def k(M=128, N=128, K=256, bM=64, bN=64, bK=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), X: T.Tensor((M, N), "float16"), C: T.Tensor((M, N), "float32"), D: T.Tensor((M, N), "float16")):
        with T.Kernel(N // bN, M // bM, threads=128) as (bx, by):
            P = T.alloc_shared((bM, bN), "float16")
            A_s = T.alloc_shared((bM, bK), "float16")
            B_s = T.alloc_shared((bK, bN), "float16")
            acc = T.alloc_fragment((bM, bN), "float32")
            T.copy(X[by * bM, bx * bN], P)
            for i, j in T.Parallel(bM, bN):
                D[by * bM + i, bx * bN + j] = P[bM - 1 - i, j]
            T.clear(acc)
            for k in T.Pipelined(K // bK, num_stages=3):
                T.copy(A[by * bM, k * bK], A_s)
                T.copy(B[k * bK, bx * bN], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C[by * bM, bx * bN])
    return main
