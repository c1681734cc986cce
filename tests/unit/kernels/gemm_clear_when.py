# A gemm whose clear_accum= is a run-time value (TileLang's examples/warp_specialize/
# example_warp_specialize_flashmla.py: `clear_accum=(j == 0)` in an unrolled loop): the
# accumulator is cleared in the iterations where it holds, so C = the last two K blocks'
# product only.
import tilelang
import tilelang.language as T


def gemm_clear_when(M=64, N=64, K=128, dtype="float16"):
    KT = K // 32

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(N // 64, M // 64, threads=128) as (bx, by):
            As = T.alloc_shared((64, 32), dtype)
            Bs = T.alloc_shared((32, 64), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            T.fill(acc, 1.0)
            for k in T.unroll(KT):
                T.copy(A[by * 64, k * 32], As)
                T.copy(B[k * 32, bx * 64], Bs)
                T.gemm(As, Bs, acc, clear_accum=(k == KT - 2))
            T.copy(acc, C[by * 64, bx * 64])

    return main
