# A pipelined loop whose body reads the multi-buffered tile with plain loads (each load
# gets the stage index).
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def k(M=64, N=64, K=256, stages=2):
    @T.prim_func
    def main(X: T.Tensor((K, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            S = T.alloc_shared((16, N), "float32")
            acc = T.alloc_fragment((M, N), "float32")
            T.clear(acc)
            for k in T.Pipelined(K // 16, num_stages=stages):
                T.copy(X[k * 16, 0], S)
                for i, j in T.Parallel(M, N):
                    acc[i, j] += S[i % 16, j] * (k + 1)
            T.copy(acc, Y)
    return main
