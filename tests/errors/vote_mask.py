# expect: T.any_sync: only mask=0xFFFFFFFF \(every lane\) is supported
# line: 13
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "int32"), B: T.Tensor((M,), "int32")):
        with T.Kernel(1, threads=64) as bx:
            tx = T.get_thread_binding()
            B[tx] = T.any_sync(A[tx] > 0,
                               0x0000FFFF)

    return main
