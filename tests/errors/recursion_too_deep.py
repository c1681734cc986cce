# expect: error: recursion too deep \(more than 200 nested calls\)
# line: 8
import tilelang
import tilelang.language as T


def down(n):
    return down(n + 1)


@tilelang.jit(out_idx=[-1])
def copy(dtype="float32"):
    M = down(0)

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = A[i]

    return main
