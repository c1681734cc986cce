# A loop that writes the rows its next iteration copies in: no copy of A is prefetched
# (a prefetch would read them before they are written); Out gets A's first rows each time.
import tilelang
import tilelang.language as T

def psn(K=128):
    @T.prim_func
    def main(A: T.Tensor((K, 64), "float16"), Out: T.Tensor((K, 64), "float16")):
        with T.Kernel(1, threads=128) as bx:
            S = T.alloc_shared((32, 64), "float16")
            for k in T.Pipelined(K // 32 - 1, num_stages=2):
                T.copy(A[k * 32, 0], S)
                T.copy(S, A[(k + 1) * 32, 0])
                T.copy(S, Out[k * 32, 0])
    return main
