# expect: error: T\.Pipelined: group 1 should continue with statement 1; tilec takes groups of consecutive statements
# line: 15
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(N=256, block=64):

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=64) as bx:
            A_s = T.alloc_shared((block,), "float32")
            # groups out of order
            for k in T.Pipelined(N // block, num_stages=2, order=[-1, 0, 1], stage=[-1, 0, 0],
                                 group=[[0], [2], [1]]):
                T.copy(A[k * block], A_s)
                for i in T.Parallel(block):
                    A_s[i] *= 2.0
                T.copy(A_s, B[k * block])

    return main
