# A shared buffer stored, then read, in one iteration: its load is not hoisted into a
# vector read before the store.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def k(M=64, N=64):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment((M, N), "float32")
            S = T.alloc_shared((M, N), "float32")
            T.copy(X, x)
            for i, j in T.Parallel(M, N):
                S[i, j] = x[i, j] * 2
                x[i, j] = S[i, j] + 1
            T.copy(x, Y)
    return main
