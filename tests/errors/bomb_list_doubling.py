# expect: error: sequence too long for compile time: 1048576 elements
# line: 10
import tilelang
import tilelang.language as T


def make():
    x = [0]
    for _ in range(64):
        x = x + x
    return len(x)


@tilelang.jit(out_idx=[-1])
def copy(dtype="float32"):
    M = make()

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(64):
                B[i] = A[i]

    return main
