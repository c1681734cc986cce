# 4-bit integers element by element: reads of int4 (sign-extended) and uint4, a fill of
# an int4 tile, a copy of half of it, a uint4 gemm on the C path, int4 arithmetic.
import tilelang.language as T

def elems(M=8, K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), T.int4), U: T.Tensor((M, K), T.uint4),
             S: T.Tensor((M, K), T.int32), Z: T.Tensor((M, K), T.int32),
             F: T.Tensor((M, K), T.int4), G: T.Tensor((M, M), T.int32),
             W: T.Tensor((M, K), T.int32)):
        with T.Kernel(1, threads=32) as bx:
            a_s = T.alloc_shared((M, K), T.int4)
            u_s = T.alloc_shared((M, K), T.uint4)
            acc = T.alloc_fragment((M, M), T.int32)
            T.copy(A, a_s)
            T.copy(U, u_s)
            for i, k in T.Parallel(M, K):
                S[i, k] = a_s[i, k]
                Z[i, k] = U[i, k]
                W[i, k] = a_s[i, k] + T.int4(5)
            T.clear(acc)
            T.gemm(u_s, u_s, acc, transpose_B=True)
            T.copy(acc, G)
            T.fill(a_s[:, 0:K // 2], -3)
            T.copy(a_s, F)
    return main
