# A GEMM over T.dynamic sizes whose row lengths (K of A, N of B and C) are symbolic: on
# sm_90a its tiles come by TMA (pass_assume_aligned assumes the rows whole 16-byte
# vectors); its general variant (no_assume_aligned) copies element by element.
import tilelang
import tilelang.language as T

def dyn_rows(block_M=64, block_N=64, block_K=32):
    M = T.dynamic("m")
    N = T.dynamic("n")
    K = T.dynamic("k")

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((block_K, block_N), "float16")
            C_f = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C[by * block_M, bx * block_N])
    return main
