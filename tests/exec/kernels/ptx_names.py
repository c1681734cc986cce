"""TileLang's PTX spellings of asynchronous copies and mbarriers (tileops_expert.c): a
producer half of the block's T.ptx_cp_async into a ring of stages, completed on mbarriers by
T.cp_async_barrier_noinc, the consumer half reading another thread's bytes; cp.async
groups (T.ptx_commit_group, T.ptx_wait_group) with predicates and 4-, 8- and 16-byte
copies; a T.create_barriers list initialized by T.ptx_init_barrier_thread_count and used
through T.ptx_arrive_barrier / T.ptx_wait_barrier / T.ptx_cp_async_barrier /
T.ptx_arrive_barrier_expect_tx, T.tvm_storage_sync. tests/exec/test_ptx_names.py has the
NumPy reference; test_emit_cuda runs it on the simulated GPU against the C target."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3, 4, 5, 6])
def ptx_names(M=128, steps=4, stages=2):

    @T.prim_func
    def main(A: T.Tensor((M, 64), "float16"), F: T.Tensor((M // (16 * steps), 256 * 4), "float32"),
             I: T.Tensor((M // (16 * steps), 256 * 2), "int32"), B: T.Tensor((M, 64), "float16"),
             E: T.Tensor((M // (16 * steps), 256 * 4), "float32"),
             J: T.Tensor((M // (16 * steps), 256 * 2), "int32"),
             G: T.Tensor((M // (16 * steps), 256), "float32")):
        with T.Kernel(M // (16 * steps), threads=256) as bx:
            S = T.alloc_shared((stages, 16, 64), "float16")
            S2 = T.alloc_shared((256 * 4,), "float32")
            S3 = T.alloc_shared((256 * 2,), "int32")
            S4 = T.alloc_shared((256,), "float32")
            full = T.alloc_barrier([128] * stages)
            empty = T.alloc_barrier([128] * stages)
            T.create_barriers(3)
            T.ptx_init_barrier_thread_count(0, 256)
            T.ptx_init_barrier_thread_count(1, 256)
            T.ptx_init_barrier_thread_count(2, 1)
            T.ptx_fence_barrier_init()
            tx = T.get_thread_binding()
            for k in T.serial(steps):
                if tx < 128:  # producers: row tx // 8, eight halves from column tx % 8 * 8
                    T.barrier_wait(empty[k % stages], ((k // stages) & 1) ^ 1)
                    T.ptx_cp_async(T.access_ptr(S[k % stages, tx // 8, tx % 8 * 8], "w", 8),
                                   T.access_ptr(A[(bx * steps + k) * 16 + tx // 8, tx % 8 * 8],
                                                "r", 8), 8)
                    T.cp_async_barrier_noinc(full[k % stages])
                if tx >= 128:  # consumers: the mirrored row, so another thread's bytes
                    c = tx - 128
                    T.barrier_wait(full[k % stages], (k // stages) & 1)
                    for j in T.serial(8):
                        B[(bx * steps + k) * 16 + 15 - c // 8, c % 8 * 8 + j] = (
                            S[k % stages, 15 - c // 8, c % 8 * 8 + j] * T.float16(2))
                    T.barrier_arrive(empty[k % stages])
            # two cp.async groups: 16 bytes (zeros where the predicate is false), then 8
            T.ptx_cp_async(T.access_ptr(S2[tx * 4], "w", 4), T.access_ptr(F[bx, tx * 4], "r", 4),
                           4, predicate=tx % 5 != 0)
            T.ptx_commit_group()
            T.ptx_cp_async(T.access_ptr(S3[tx * 2], "w", 2), T.access_ptr(I[bx, tx * 2], "r", 2),
                           2)
            T.ptx_commit_group()
            T.ptx_wait_group(1)
            T.tvm_storage_sync("shared")
            for j in T.serial(4):
                E[bx, tx * 4 + j] = S2[(255 - tx) * 4 + j] + 1.0
            T.ptx_wait_group(0)
            T.tvm_storage_sync("shared")
            for j in T.serial(2):
                J[bx, tx * 2 + j] = S3[(tx + 7) % 256 * 2 + j] * 3
            # 4 bytes, completed on barrier 1 (an arrival it does not count), then 256
            # arrivals on it; barrier 0 and 2 as plain barriers
            T.ptx_cp_async(T.access_ptr(S4[tx], "w"), T.access_ptr(F[bx, tx * 3], "r"), 1)
            T.ptx_cp_async_barrier(1)
            T.ptx_arrive_barrier(1)
            T.ptx_wait_barrier(1)
            T.ptx_arrive_barrier(0)
            T.ptx_wait_barrier(0)
            T.ptx_arrive_barrier_expect_tx(2, 0)
            T.ptx_wait_barrier(2)
            G[bx, tx] = S4[(tx + 100) % 256] - 1.0
            T.tvm_storage_sync("warp")
            T.tma_store_arrive()
            T.tma_store_wait()

    return main
