# expect: a warp vote under a condition that depends on the thread index is not supported: every lane of the warp must reach it
# line: 14
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "int32"), B: T.Tensor((M,), "int64")):
        with T.Kernel(1, threads=64) as bx:
            tx = T.get_thread_binding()
            if A[tx] > 0:
                B[tx] = T.ballot(A[tx] > 3)

    return main
