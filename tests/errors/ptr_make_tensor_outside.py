# expect: T.make_tensor
# line: 11
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(P: T.ptr, B: T.Tensor((M,), "float32")):
        A = T.make_tensor(P, (M,), "float32")
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = A[i]

    return main
