# A reduction's workspace reuses the bytes of a buffer other threads still read: a barrier
# comes first.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def k(M=64, N=256):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Z: T.Tensor((M, N), "float32"), Y: T.Tensor((M,), "float32")):
        with T.Kernel(M // 4, threads=128) as bx:
            S = T.alloc_shared((4, N), "float32")
            x = T.alloc_fragment((4, N), "float32")
            s = T.alloc_fragment((4,), "float32")
            T.copy(X[bx * 4, 0], S)
            for i, j in T.Parallel(4, N):
                x[i, j] = S[i, N - 1 - j]
            T.reduce_sum(x, s, dim=1)
            for i in T.Parallel(4):
                Y[bx * 4 + i] = s[i]
    return main
