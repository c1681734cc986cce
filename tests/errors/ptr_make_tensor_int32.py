# expect: T.make_tensor: the address must be a 64-bit integer
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(Offs: T.Tensor((4,), "int32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(4, threads=128) as bx:
            A = T.make_tensor(Offs[bx], (M,), "float32")
            for i in T.Parallel(M):
                B[i] = A[i]

    return main
