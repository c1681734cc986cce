# expect: error: compile-time work limit reached
# line: 13
import tilelang
import tilelang.language as T


@T.macro
def twice(A, B, n):
    if n == 0:
        B[0] = A[0]
    else:
        twice(A, B, n - 1)
        twice(A, B, n - 1)


@tilelang.jit(out_idx=[-1])
def copy(dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((64,), dtype), B: T.Tensor((64,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            twice(A, B, 30)

    return main
