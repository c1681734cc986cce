"""T.rng_init / T.rng_rand / T.rng_rand_float (tileops_mem.c, runtime/c/tl_c.h): cuRAND's
Philox4x32-10 per thread, as TileLang's examples/rand/rand_uint.py seeds it (subsequence
0, an offset per thread), with the default subsequence (the thread's number in the grid),
and with both given, draws past a counter's four words. tests/exec/test_ptx_names.py has
an independent Python Philox4x32-10 (checked against Random123's known answers);
test_emit_cuda runs it on the simulated GPU against the C target."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[0, 1, 2])
def rng_names(N=1000, threads=128, per=4, seed=42):

    @T.prim_func
    def main(A: T.Tensor((N,), "uint32"), U: T.Tensor((N,), "float32"),
             D: T.Tensor((N,), "uint32")):
        with T.Kernel(T.ceildiv(N, threads * per), threads=threads) as bx:
            tx = T.get_thread_binding()
            first = (bx * threads + tx) * per
            T.rng_init(seed, 0, first)
            for j in T.serial(per):
                if first + j < N:
                    A[first + j] = T.rng_rand()
            T.rng_init(seed + 1)
            for j in T.serial(per):
                if first + j < N:
                    U[first + j] = T.rng_rand_float()
            T.rng_init(seed * 3 + 0x100000000, tx * 7 + bx, 5 + tx % 4)
            for j in T.serial(per):
                if first + j < N:
                    D[first + j] = T.rng_rand()

    return main
