# expect: T.launch_thread is not supported yet by tilec \(TVM thread-level code; use T.get_thread_binding
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            tx = T.launch_thread("threadIdx.x", 32)
            A[tx] = 0.0

    return main
