# A copy into a tile that the body reads before it stays where it is (hoist_producers):
# Out's rows k * 32.. get A's rows of the iteration before.
import tilelang
import tilelang.language as T

def prf(K=128):
    @T.prim_func
    def main(A: T.Tensor((K, 64), "float16"), Out: T.Tensor((K, 64), "float16")):
        with T.Kernel(1, threads=128) as bx:
            S = T.alloc_shared((32, 64), "float16")
            T.copy(A[0, 0], S)
            for k in T.Pipelined(K // 32, num_stages=2):
                T.copy(S, Out[k * 32, 0])
                T.copy(A[k * 32, 0], S)
    return main
