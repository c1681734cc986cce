# split_shared.c's other cases: a tile filled whole (T.fill: one per piece), loaded whole
# by T.copy (one per piece), read by a gemm on a middle column slice, by a T.Parallel nest
# at a column offset, and copied out from columns no gemm reads (a piece of their own);
# a stage buffer written element by element in a serial loop over 32-column panels.
import tilelang
import tilelang.language as T


def split_pieces(M=64, N=32, K=64):
    dtype = "float16"

    @T.prim_func
    def main(A: T.Tensor((M, 3 * K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), "float32"), D: T.Tensor((M, 2 * K), dtype),
             E: T.Tensor((2, N, 3 * K), dtype)):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, 3 * K), dtype)
            B_s = T.alloc_shared((N, K), dtype)
            S_s = T.alloc_shared((2, N, 3 * K), dtype)
            acc = T.alloc_fragment((M, N), "float32")
            T.fill(A_s, 0)
            T.copy(A[0:M, 0:2 * K], A_s[:, 0:2 * K])
            T.copy(B, B_s)
            T.clear(acc)
            T.gemm(A_s[:, K:2 * K], B_s, acc, transpose_B=True)
            for i, j in T.Parallel(M, K):
                A_s[i, 2 * K + j] = A_s[i, j] + A_s[i, K + j]
            T.copy(acc, C)
            T.copy(A_s[:, K:3 * K], D)
            for s in T.serial(2):
                for u in T.serial(3 * K // 32):
                    for i in T.Parallel(N):
                        S_s[s, i, 32 * u + i % 32] = A_s[i, 32 * u + i % 32] + s
            T.copy(S_s, E)

    return main
