# T.ptx_cp_async_bulk (tests/exec/test_wgmma_raw.py; test_emit_cuda for sm_80 and sm_90a):
# thread 0 of each block expects the chunk's bytes on barrier 0 of the kernel's list,
# issues the bulk copy of CHUNK floats from A into shared memory, and arrives; every
# thread waits for the barrier's first phase and stores twice what it reads to B.
import tilelang
import tilelang.language as T


def bulk_copy(N=1024, CHUNK=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // CHUNK, threads=128) as bx:
            S = T.alloc_shared((CHUNK + 32,), "float32")
            T.create_barriers(1)
            T.ptx_init_barrier_thread_count(0, 1)
            T.ptx_fence_barrier_init()
            T.fence_proxy_async()  # the block's zeroing of S, before the async proxy writes
            T.sync_threads()
            tx = T.get_thread_binding()
            if tx == 0:
                T.mbarrier_expect_tx(0, CHUNK * 4)
                T.ptx_cp_async_bulk("float32", S.data, 32, A.data, bx * CHUNK, CHUNK * 4, 0)
                T.ptx_arrive_barrier(0)
            T.ptx_wait_barrier(0)
            for i in T.serial(CHUNK // 128):
                B[bx * CHUNK + i * 128 + tx] = S[32 + i * 128 + tx] * 2.0

    return main
