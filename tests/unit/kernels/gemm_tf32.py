# float32 T.gemm on TF32 tensor cores (mma.sync m16n8k8): A and B in shared memory,
# B [N, K] (transpose_B) or A [K, M] (transpose_A); A in registers (tl_gemm_rs_tf32), B
# [K, N]. The operands are scaled by 4/3 in the kernel so that they are not TF32 values
# already (the harness's inputs are): each side must round them the same way.
import tilelang
import tilelang.language as T

def gtf(M=64, N=32, K=40):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((N, K), "float32"),
             C1: T.Tensor((M, N), "float32"), C2: T.Tensor((M, N), "float32"),
             C3: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, K), "float32")
            At_s = T.alloc_shared((K, M), "float32")
            B_s = T.alloc_shared((N, K), "float32")
            Bt_s = T.alloc_shared((K, N), "float32")
            A_f = T.alloc_fragment((M, K), "float32")
            acc = T.alloc_fragment((M, N), "float32")
            for i, k in T.Parallel(M, K):
                A_s[i, k] = A[i, k] * (4.0 / 3.0)
                At_s[k, i] = A[i, k] * (4.0 / 3.0)
            for j, k in T.Parallel(N, K):
                B_s[j, k] = B[j, k] * (4.0 / 3.0)
                Bt_s[k, j] = B[j, k] * (4.0 / 3.0)
            T.gemm(A_s, B_s, acc, transpose_B=True, clear_accum=True)
            T.copy(acc, C1)
            T.gemm(At_s, Bt_s, acc, transpose_A=True, clear_accum=True)
            T.copy(acc, C2)
            T.copy(A_s, A_f)
            T.gemm(A_f, Bt_s, acc, clear_accum=True)
            T.copy(acc, C3)
    return main
