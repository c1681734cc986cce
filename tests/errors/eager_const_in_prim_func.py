# expect: error: T.const declares the sizes of an eager-style kernel
# line: 9
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16,), T.float32)):
    with T.Kernel(1, threads=16):
        N = T.const("N")
        for i in T.Parallel(16):
            A[i] = A[i] + N
