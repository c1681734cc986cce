"""The program's named barriers (tileops_expert.c): a producer half of the block fills a
shared tile and arrives at barrier 1 without waiting (T.named_barrier_arrive), the
consumer half waits there (T.sync_threads(1, 256)), reads other threads' values and
hands the tile back through barrier 2. tests/exec/test_ptx_names.py has the NumPy
reference; test_emit_cuda runs it on the simulated GPU against the C target, and with a
wrong thread count, which must deadlock."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def named_bar(N=1024, steps=4):

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // (128 * steps), threads=256) as bx:
            S = T.alloc_shared((128,), "float32")
            tx = T.get_thread_binding()
            for k in T.serial(steps):
                if tx < 128:  # producers
                    if k > 0:
                        T.sync_threads(2, 256)  # the consumers are done with S
                    S[tx] = A[(bx * steps + k) * 128 + tx] * 2.0
                    T.named_barrier_arrive(1, 256)  # S is full
                if tx >= 128:  # consumers
                    T.sync_threads(barrier_id=1, arrive_count=256)
                    B[(bx * steps + k) * 128 + tx - 128] = S[255 - tx] + 1.0
                    if k < steps - 1:
                        T.named_barrier_arrive(2, 256)

    return main
