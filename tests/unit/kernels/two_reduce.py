# Two reductions across warps in a row (a softmax row per block): each has its own
# barriers around its shared workspace, which also order what came before it, so the
# second one's workspace (the same bytes) needs no barrier of its own; a loop runs them
# twice.
import tilelang
import tilelang.language as T

def k(M=4, N=1024):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(M, threads=128) as bx:
            x = T.alloc_fragment((1, N), "float32")
            mx = T.alloc_fragment((1,), "float32")
            sm = T.alloc_fragment((1,), "float32")
            T.copy(X[bx, 0], x)
            for r in T.serial(2):
                T.reduce_max(x, mx, dim=1)
                for i, j in T.Parallel(1, N):
                    x[i, j] = T.exp(x[i, j] - mx[i])
                T.reduce_sum(x, sm, dim=1)
                for i, j in T.Parallel(1, N):
                    x[i, j] = x[i, j] / sm[i]
            T.copy(x, Y[bx, 0])
    return main
