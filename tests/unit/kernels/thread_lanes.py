# Thread-level code mixed with tile operations: lane, warp and warp-group indices, a loop
# whose trip count depends on the thread, a T.alloc_var per thread, a tile copy and a
# T.Parallel loop between per-thread statements, T.get_block_binding, T.sync_warp.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def lanes(M=256):
    @T.prim_func
    def main(X: T.Tensor((M,), "float32"), Y: T.Tensor((M, 4), "float32")):
        with T.Kernel(M // 128, threads=128) as bx:
            S = T.alloc_shared((128,), "float32")
            R = T.alloc_shared((128,), "float32")
            n = T.alloc_var("int32")
            T.copy(X[bx * 128:(bx + 1) * 128], S)
            tx = T.get_thread_binding()
            lane = T.get_lane_idx()
            n = 0
            for i in T.serial(lane % 4):
                n += i + 1
            R[tx] = S[127 - tx] * 2.0 + n
            T.sync_warp()
            for i in T.Parallel(128):
                S[i] = R[i] + 1.0
            b = T.get_block_binding()
            Y[b * 128 + tx, 0] = S[tx]
            Y[b * 128 + tx, 1] = T.get_warp_idx() * 1.0
            Y[b * 128 + tx, 2] = T.get_warp_group_idx(warps_per_group=2) * 1.0
            Y[b * 128 + tx, 3] = R[(tx + 1) % 128]
    return main
