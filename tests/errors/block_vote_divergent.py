# expect: T.syncthreads_or under a condition that depends on the thread index is not supported: every thread of the block must reach it
# line: 15
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "int32"), B: T.Tensor((M,), "int32")):
        with T.Kernel(1, threads=64) as bx:
            tx = T.get_thread_binding()
            for i in T.serial(4):
                if tx < 32 * (i % 2):
                    B[tx] = T.syncthreads_or(A[tx] > i)

    return main
