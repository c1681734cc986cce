# expect: T.serial: the step must not be zero
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.serial(0, M, 0):
                B[i] = A[i]

    return main
