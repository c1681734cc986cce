# A persistent grid (SIM_RESIDENT blocks walk 5 x 3 x 2 tiles) in T.use_swizzle order
# over a batch: lets of the block indices before the loop, computed per tile on both
# sides; ragged N.
import tilelang
import tilelang.language as T

def wst(B=2, M=192, N=300, K=128, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((B, M, K), dtype), W: T.Tensor((N, K), dtype),
             C: T.Tensor((B, M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 64), M // 64, B, threads=128) as (bx, by, bz):
            A_s = T.alloc_shared((64, 64), dtype)
            W_s = T.alloc_shared((64, 64), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            T.use_swizzle(panel_size=2)
            m0 = by * 64
            n0 = bx * 64
            T.clear(acc)
            for k in T.Pipelined(K // 64, num_stages=3):
                T.copy(A[bz, m0, k * 64], A_s)
                T.copy(W[n0, k * 64], W_s)
                T.gemm(A_s, W_s, acc, transpose_B=True)
            T.copy(acc, C[bz, m0, n0])
    return main
