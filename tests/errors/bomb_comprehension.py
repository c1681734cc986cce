# expect: error: compile-time work limit reached
# line: 8
import tilelang
import tilelang.language as T


def make():
    return len([i * j for i in range(100000) for j in range(100000)])


@tilelang.jit(out_idx=[-1])
def copy(dtype="float32"):
    M = make()

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(64):
                B[i] = A[i]

    return main
