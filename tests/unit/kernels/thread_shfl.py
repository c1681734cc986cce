# Warp-level code: every warp shuffle kind and the warp reductions, on int32 values (exact
# in any order), two warps of a block and a lane index that names another warp's lanes.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def shfl(M=128):
    @T.prim_func
    def main(X: T.Tensor((M,), "int32"), Y: T.Tensor((M, 8), "int32")):
        with T.Kernel(M // 64, threads=64) as bx:
            tx = T.get_thread_binding()
            v = X[bx * 64 + tx]
            Y[bx * 64 + tx, 0] = T.shfl_xor(v, 5)
            Y[bx * 64 + tx, 1] = T.shfl_down(v, 3)
            Y[bx * 64 + tx, 2] = T.shfl_up(v, 7)
            Y[bx * 64 + tx, 3] = T.shfl_sync(v, tx % 32 * 3 + 1)
            Y[bx * 64 + tx, 4] = T.warp_reduce_sum(v)
            Y[bx * 64 + tx, 5] = T.warp_reduce_max(v)
            Y[bx * 64 + tx, 6] = T.warp_reduce_min(v) + T.warp_reduce_bitor(v & 7)
            Y[bx * 64 + tx, 7] = T.shfl_xor(T.shfl_down(v, 1) * 2, 16)
    return main
