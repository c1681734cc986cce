# expect: error: compile-time work limit reached: more than 4000000 steps
import tilelang
import tilelang.language as T


def grow(n):
    # doubles the work at each level: 2**30 calls
    return 1 if n == 0 else grow(n - 1) + grow(n - 1)


@tilelang.jit(out_idx=[-1])
def copy(dtype="float32"):
    M = grow(30)

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = A[i]

    return main
