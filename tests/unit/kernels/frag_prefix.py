# Nests over the leading rows of a gemm accumulator (flash decoding's T.copy(acc_o[:4, :],
# O_shared) with 4 valid heads of 64): they run over the whole accumulator with the other
# rows skipped, so acc stays in registers in the gemm's layout: a partial copy out, a
# partial row scale, and a partial row sum into a 4-row fragment.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def k(M=64, N=64, K=32, rows=4):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"),
             C: T.Tensor((rows, N), "float16"), D: T.Tensor((rows,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, K), "float16")
            B_s = T.alloc_shared((N, K), "float16")
            O_s = T.alloc_shared((rows, N), "float16")
            acc = T.alloc_fragment((M, N), "float32")
            part = T.alloc_fragment((M,), "float32")
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.clear(acc)
            T.gemm(A_s, B_s, acc, transpose_B=True)
            for i, j in T.Parallel(rows, N):
                acc[i, j] = acc[i, j] * (i + 1)
            T.reduce_sum(acc, part, dim=1)
            for i in T.Parallel(rows):
                D[i] = part[i]
            T.copy(acc[:rows, :], O_s)
            T.copy(O_s, C)
    return main
