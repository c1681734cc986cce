# expect: T.shfl_down is not supported yet by tilec \(thread-level code
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            B[bx] = T.shfl_down(A[bx], 1)

    return main
