# expect: error: sequence too long for compile time: 2000000 elements \(the limit is 1000000\)
# line: 9
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def copy(dtype="float32"):
    M = len(list(range(2000000)))

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = A[i]

    return main
