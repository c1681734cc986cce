# expect: error: .*\bscale\b.*(not defined|unknown|undefined)|error: .*(not defined|unknown|undefined).*\bscale\b
# line: 14
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale_by(M=64, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(M):
                B[i] = A[i] * scale

    return main
