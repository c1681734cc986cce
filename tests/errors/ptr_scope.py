# expect: T.ptr: storage_scope must be "global"
# line: 10
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(P: T.ptr("float32", "shared"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A = T.make_tensor(P, (M,), "float32")
            for i in T.Parallel(M):
                B[i] = A[i]

    return main
