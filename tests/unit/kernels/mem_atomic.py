# Atomics beyond add/max/min: T.atomic_load / atomic_store / atomic_or with memory orders,
# and return_prev=True (thread-level: each thread makes the atomic and gets the value it
# replaced). Every result is independent of the order the threads run in (Cnt[0]'s
# tickets may fall outside Seen: those adds are dropped).
import tilelang
import tilelang.language as T

def mem_atomic(n=64, threads=32):
    @T.prim_func
    def main(X: T.Tensor((n,), "int32"), Cnt: T.Tensor((4,), "int32"),
             Seen: T.Tensor((n,), "int32"), Bits: T.Tensor((2,), "uint64"),
             F: T.Tensor((4,), "float32"), H: T.Tensor((2,), "float16"),
             O: T.Tensor((n,), "int32"), G: T.Tensor((1,), "float32")):
        with T.Kernel(n // threads, threads=threads) as bx:
            tx = T.get_thread_binding()
            i = bx * threads + tx
            ticket = T.atomic_add(Cnt[0], 1, return_prev=True)
            T.atomic_add(Seen[ticket], 1)
            T.atomic_add(Cnt[1], ticket, memory_order="relaxed")
            T.atomic_or(Cnt[2], 1 << (i % 31))
            T.atomic_or(Bits[0], T.cast(1, "uint64") << T.cast(i, "uint64"), memory_order="acq_rel")
            T.atomic_max(F[0], X[i] * 0.5, memory_order="seq_cst")
            old = T.atomic_min(F[1], X[i] * 1.0, return_prev=True)
            T.atomic_max(G[0], old)  # the largest value replaced: F[1]'s first, in any order
            if tx == 0:
                T.atomic_store(F[2], 2.5, memory_order="release")
                T.atomic_store(H[0], -1.5)
            O[i] = T.atomic_load(X[i], memory_order="acquire") + T.atomic_load(X[(i + 1) % n])
        with T.Kernel(1, threads=32) as bx:
            T.atomic_store(F[3], T.atomic_load(F[2], memory_order="relaxed") + 1.0)
            T.atomic_store(Bits[1], T.atomic_load(Bits[0]) >> T.cast(1, "uint64"))
    return main
