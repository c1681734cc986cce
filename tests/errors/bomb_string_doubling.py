# expect: error: compile-time work limit reached
# line: 10
import tilelang
import tilelang.language as T


def make():
    s = "ab"
    for _ in range(64):
        s = s + s
    return 64


@tilelang.jit(out_idx=[-1])
def copy(dtype="float32"):
    M = make()

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(64):
                B[i] = A[i]

    return main
