# Views of global memory in another shape (T.Tensor(shape, dtype, buf.data), T.reshape,
# T.view): tile copies and element stores through them (the simulation checks the CUDA
# target against the C target).
import tilelang
import tilelang.language as T

def views(M=4, N=8, K=16):
    @T.prim_func
    def main(A: T.Tensor((M, N, K), "float32"), B: T.Tensor((M * N, K), "float32")):
        with T.Kernel(M // 2, threads=128) as bx:
            A2 = T.Tensor((M * N, K), "float32", A.data)
            B3 = T.reshape(B, (M, N, K))
            B2 = T.view(B3, (M * N, K))
            s = T.alloc_shared((2 * N, K), "float32")
            T.copy(A2[bx * 2 * N, 0], s)
            for i, j in T.Parallel(2 * N, K):
                s[i, j] = s[i, j] * 2.0
            for i, j in T.Parallel(N, K):
                B3[bx * 2, i, j] = s[i, j]
            T.copy(s[N:2 * N, :], B2[bx * 2 * N + N, 0])
    return main
