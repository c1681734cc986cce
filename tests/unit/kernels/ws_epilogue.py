# Warp specialization (sm_90a): the epilogue through a shared tile (swizzled, 16-byte global stores) on ragged
# edges, in clusters along y (the grid's x extent, 3, is odd).
import tilelang
import tilelang.language as T

def wse(M=200, N=136, K=200, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 64), dtype)
            B_s = T.alloc_shared((64, 64), dtype)
            C_s = T.alloc_shared((64, 64), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=2):
                T.copy(A[by * 64, k * 64], A_s)
                T.copy(B[bx * 64, k * 64], B_s)
                T.gemm(A_s, B_s, acc, transpose_B=True)
            T.copy(acc, C_s)
            T.copy(C_s, C[by * 64, bx * 64])
    return main
