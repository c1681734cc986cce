# expect: T.reinterpret: float32 and uint16 differ in width
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "uint16")):
        with T.Kernel(1, threads=32) as bx:
            B[bx] = T.reinterpret(A[bx], "uint16")

    return main
