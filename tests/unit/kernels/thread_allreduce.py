# TVM's cross-thread reduction as TileLang's gemv examples write it (example_gemv.py,
# splitk_gemv_vectorized_tvm): T.attr / T.comm_reducer / T.evaluate /
# T.tvm_thread_allreduce over the y thread index of a 2-D block. int32: exact in any order.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def allreduce(N=64, K=256, BLOCK_N=8, RT=16, TILE_K=4):
    BLOCK_K = RT * TILE_K

    @T.prim_func
    def main(A: T.Tensor((K,), "int32"), B: T.Tensor((N, K), "int32"), C: T.Tensor((N,), "int32")):
        with T.Kernel(T.ceildiv(N, BLOCK_N), threads=(BLOCK_N, RT)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.get_thread_binding(1)
            a_local = T.alloc_local((TILE_K,), "int32")
            acc = T.alloc_local((1,), "int32")
            T.clear(acc)
            for bk in T.serial(T.ceildiv(K, BLOCK_K)):
                for k in T.vectorized(TILE_K):
                    a_local[k] = A[bk * BLOCK_K + tk * TILE_K + k]
                for k in T.serial(TILE_K):
                    acc[0] += a_local[k] * B[bn * BLOCK_N + tn, bk * BLOCK_K + tk * TILE_K + k]
            reduced = T.alloc_local((1,), "int32")
            with T.attr(
                T.comm_reducer(lambda x, y: x + y, [T.cast(0, "int32")]),
                "reduce_scope",
                T.reinterpret(T.uint64(0), dtype="handle"),
            ):
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), acc[0], True, reduced[0], tk, dtype="handle"))
            C[bn * BLOCK_N + tn] = reduced[0]
    return main
