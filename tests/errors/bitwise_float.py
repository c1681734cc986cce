# expect: T.bitwise_and: operands must be integers, got float32
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "int32")):
        with T.Kernel(1, threads=128) as bx:
            B[bx] = T.bitwise_and(
                A[bx], 3)

    return main
