# expect: a warp shuffle under a condition that depends on the thread index is not supported
# line: 14
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            tx = T.get_thread_binding()
            if tx < 16:
                B[tx] = T.shfl_down(A[tx], 1)

    return main
