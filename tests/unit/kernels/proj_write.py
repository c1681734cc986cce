# A row vector written under a condition in a wider nest: only some of the threads that
# hold it would write their copy, so it stays in shared memory.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def k(M=16, N=64):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment((M, N), "float32")
            m = T.alloc_fragment((M,), "float32")
            T.copy(X, x)
            for i, j in T.Parallel(M, N):
                if j == 0:
                    m[i] = x[i, j]
            for i, j in T.Parallel(M, N):
                x[i, j] = x[i, j] - m[i]
            T.copy(x, Y)
    return main
