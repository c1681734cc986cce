# expect: error: 'i' is not available here: it was defined inside a kernel loop that has ended
# line: 14
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def add_one(M=64, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = A[i] + 1
            B[i] = 0
    return main
