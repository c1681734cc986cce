# expect: T.isnullptr: 'A' is not a tensor made by T.make_tensor
# line: 13
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = T.if_then_else(T.isnullptr(A), 0.0,
                                      A[i])

    return main
