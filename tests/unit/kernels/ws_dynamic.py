# Warp specialization (sm_90a): a symbolic trip count, plain (unswizzled) fp32 rows, no gemm: the consumers
# release each stage at the end of the body.
import tilelang
import tilelang.language as T

def wsd(M=64, N=64):
    K = T.dynamic("K")

    @T.prim_func
    def main(X: T.Tensor((K, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            S = T.alloc_shared((16, N), "float32")
            acc = T.alloc_fragment((M, N), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 16), num_stages=3):
                T.copy(X[k * 16, 0], S)
                for i, j in T.Parallel(M, N):
                    acc[i, j] += S[i % 16, j] * (k + 1)
            T.copy(acc, Y)
    return main
