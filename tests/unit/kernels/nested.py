# Nested T.Parallel under a run-time extent: the inner loops are part of the outer nest
# (compiles; the program races on x, so it is not simulated).
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def k(N=64):
    M = T.dynamic("M")
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment((N,), "float32")
            for i in T.Parallel(M):
                for j in T.Parallel(N):
                    x[j] = X[i, j] * 2
                for j in T.Parallel(N):
                    Y[i, j] = x[j]
    return main
