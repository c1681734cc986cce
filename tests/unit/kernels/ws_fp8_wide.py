# fp8 wgmma (k32 QGMMA, K-major A and B) on TMA tiles: 128-byte rows of e4m3, and 64-byte
# rows of e4m3 x e5m2 with ragged M, N and K.
# K-major fp8 tiles of 256-byte rows: two 128-byte column panels (a TMA box and a
# descriptor base each); ragged M, N and K (the last k-tile's second panel is empty).
import tilelang
import tilelang.language as T

def wsf8(M=200, N=80, K=592, bk=256, out="bfloat16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float8_e4m3"), B: T.Tensor((N, K), "float8_e4m3"),
             C: T.Tensor((M, N), out)):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 128), threads=256) as (bx, by):
            A_s = T.alloc_shared((128, bk), "float8_e4m3")
            B_s = T.alloc_shared((64, bk), "float8_e4m3")
            acc = T.alloc_fragment((128, 64), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                T.copy(A[by * 128, k * bk], A_s)
                T.copy(B[bx * 64, k * bk], B_s)
                T.gemm(A_s, B_s, acc, transpose_B=True)
            T.copy(acc, C[by * 128, bx * 64])
    return main
