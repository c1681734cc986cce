# expect: T.launch_thread: extent 32, but the kernel has 64 threads along x
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=64) as bx:
            tx = T.launch_thread("threadIdx.x", 32)
            A[tx] = 0.0

    return main
