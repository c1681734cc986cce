# Warp specialization (sm_90a): an epilogue tile of 128 16-bit columns: two 64-column panels, each a TMA store box
# (tma_store.c), clipped at the ragged edges; two tiles per block of the persistent grid.
import tilelang
import tilelang.language as T

def wsp(M=260, N=296, K=192, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=256) as (bx, by):
            A_s = T.alloc_shared((128, 64), dtype)
            B_s = T.alloc_shared((64, 128), dtype)
            C_s = T.alloc_shared((128, 128), dtype)
            acc = T.alloc_fragment((128, 128), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=3):
                T.copy(A[by * 128, k * 64], A_s)
                T.copy(B[k * 64, bx * 128], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C_s)
            T.copy(C_s, C[by * 128, bx * 128])
    return main
