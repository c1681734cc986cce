# int8 gemms with int32 accumulation on mma.sync m16n8k32 (both storage orders of each
# operand), on ragged edges.
import tilelang
import tilelang.language as T

def g8(M=72, N=56, K=80):
    @T.prim_func
    def main(A: T.Tensor((K, M), "int8"), B: T.Tensor((N, K), "int8"),
             C: T.Tensor((M, N), "int32")):
        with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 64), "int8")
            B_s = T.alloc_shared((32, 64), "int8")
            acc = T.alloc_fragment((64, 32), "int32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=2):
                T.copy(A[k * 64, by * 64], A_s)
                T.copy(B[bx * 32, k * 64], B_s)
                T.gemm(A_s, B_s, acc, transpose_A=True, transpose_B=True)
            T.copy(acc, C[by * 64, bx * 32])
    return main
