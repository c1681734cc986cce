# expect: error: .break. outside a loop
# line: 13
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "int32")):
        with T.Kernel(1, threads=128) as bx:
            B[bx] = 1
            T.loop_break()

    return main
