# Thread-level code on a 2-D thread block (TileLang's gemv/example_gemv.py,
# naive_splitk_gemv): threads (tn, tk) each multiply one pair, a thread-dependent `if`
# zeroes the shared sums, every thread adds into them with T.atomic_add, and the
# threads with tk == 0 write the result; a let of the thread index. int32: the sums are
# exact in any order of the atomics. T.thread_binding, TVM's spelling, for the y index.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def splitk(N=96, K=128, BLOCK_N=16, BLOCK_K=8):
    @T.prim_func
    def main(A: T.Tensor((K,), "int32"), B: T.Tensor((N, K), "int32"), C: T.Tensor((N,), "int32")):
        with T.Kernel(T.ceildiv(N, BLOCK_N), threads=(BLOCK_N, BLOCK_K)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.thread_binding(0, BLOCK_K, thread="threadIdx.y")  # TVM's spelling
            row = bn * BLOCK_N + tn
            acc = T.alloc_local((1,), "int32")
            C_shared = T.alloc_shared((BLOCK_N,), "int32")
            if tk == 0:
                C_shared[tn] = 0
            T.clear(acc)
            for bk in T.serial(T.ceildiv(K, BLOCK_K)):
                acc[0] += A[bk * BLOCK_K + tk] * B[row, bk * BLOCK_K + tk]
            T.atomic_add(C_shared[tn], acc[0])
            if tk == 0:
                C[row] = C_shared[tn]
    return main
