# expect: error: .*T\.exp2.*(argument|expects|takes)|error: .*(argument|expects|takes).*T\.exp2
# line: 14
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def exp2(M=64, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = T.exp2(A[i], 2.0)

    return main
