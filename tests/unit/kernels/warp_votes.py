# Warp and block votes and shuffles of a part of the warp (tileops_thread.c), on a 2-D
# block whose last warp is partial (16 x 5 threads: lanes 0..15 of warp 2 exist), with
# predicates that differ per lane and per warp (each warp's test moves with its index); a
# vote in a T.if_then_else branch and after `and`, and a shuffle as a load's index (every
# lane still runs each: the front end makes each a let of its own).
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def votes(M=160, TX=16, TY=5):
    NT = TX * TY

    @T.prim_func
    def main(X: T.Tensor((M,), "int32"), F: T.Tensor((M,), "float32"),
             Y: T.Tensor((M, 18), "int64")):
        with T.Kernel(M // NT, threads=(TX, TY)) as bx:
            tx, ty = T.get_thread_bindings()[0:2]
            g = bx * NT + ty * TX + tx
            w = T.get_warp_idx()
            v = X[g]
            Y[g, 0] = T.ballot(v > w - 2)
            Y[g, 1] = T.ballot_sync(v % 3, 0xFFFFFFFF) + T.activemask() * 1073741824
            Y[g, 2] = T.any_sync(v > 6 - 4 * w) + T.all_sync(v >= -8 + 4 * w) * 2
            Y[g, 3] = T.match_any_sync(v % 5)
            Y[g, 4] = T.match_all_sync(T.min(v, w * 8 - 9))
            Y[g, 5] = T.match_any_sync(F[g] * 0.0)
            Y[g, 6] = T.shuffle_elect(64) + T.shuffle_elect(0) * 2 + T.shuffle_elect(32) * 4
            Y[g, 7] = T.syncthreads_and(v > -9 + 20 * bx) + T.syncthreads_or(v > 6 + bx) * 2
            Y[g, 8] = T.syncthreads_count(v > 0)
            Y[g, 9] = T.tvm_warp_activemask()
            Y[g, 10] = T.tvm_warp_shuffle(0xFFFFFFFF, v, tx ^ 3, 8, 8)
            Y[g, 11] = T.shfl_up(v, 2, width=16) + T.tvm_warp_shuffle_down(T.activemask(), v, 5,
                                                                           16, 32) * 100
            Y[g, 12] = T.shfl_xor(v, 9, width=8) + T.shfl_sync(v, 13, width=4) * 100
            Y[g, 13] = T.match_all_sync(T.int64(w) * 3000000000)
            Y[g, 14] = T.any_sync(T.ballot(v > 0) > 65535) + T.syncthreads_count(T.all_sync(v > -7))
            Y[g, 15] = T.shfl_up(v, 33) + T.shfl_xor(v, 40) * 100
            Y[g, 16] = (T.if_then_else(tx < 4, T.any_sync(v > 5), v) +
                        (tx > 3 and T.all_sync(v > -7 + 8 * w)) * 100)
            Y[g, 17] = X[T.shfl_xor(g, 1)]
    return main
