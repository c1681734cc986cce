# expect: error: pass_configs must be a dict
# line: 8
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], pass_configs=["tl.disable_warp_specialized"])
def scale(N=64):

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] * 2.0

    return main
