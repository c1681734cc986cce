# expect: T.make_tensor: 'A' is a tensor, not an address
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            V = T.make_tensor(A, (M,), "float32")
            for i in T.Parallel(M):
                B[i] = V[i]

    return main
