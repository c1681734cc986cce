# int4 gemms (TileLang's T.int4: two per int8 byte, the low nibble first) with int32
# accumulation: mma.sync m16n8k64 .s4 on CUDA for K tiles of 64, on ragged edges.
import tilelang
import tilelang.language as T

def g4(M=72, N=56, K=160, block_K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), T.int4), B: T.Tensor((N, K), T.int4),
             C: T.Tensor((M, N), T.int32)):
        with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, block_K), T.int4)
            B_s = T.alloc_shared((32, block_K), T.int4)
            acc = T.alloc_fragment((64, 32), T.int32)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * 64, k * block_K], A_s)
                T.copy(B[bx * 32, k * block_K], B_s)
                T.gemm(A_s, B_s, acc, transpose_B=True)
            T.copy(acc, C[by * 64, bx * 32])
    return main
