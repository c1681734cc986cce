# T.gemm operands in registers (stage_operands.c): A and B from fragments, B transposed
# (B is staged through shared memory, A read from registers), on ragged edges ...
# ... A transposed in a fragment (staged too).
import tilelang
import tilelang.language as T

def gf(M=72, N=56, K=40, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((K, M), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((32, 64), dtype)
            B_s = T.alloc_shared((32, 32), dtype)
            A_f = T.alloc_fragment((32, 64), dtype)
            B_f = T.alloc_fragment((32, 32), dtype)
            acc = T.alloc_fragment((64, 32), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
                T.copy(A[k * 32, by * 64], A_s)
                T.copy(B[k * 32, bx * 32], B_s)
                T.copy(A_s, A_f)
                T.copy(B_s, B_f)
                T.gemm(A_f, B_f, acc, transpose_A=True, transpose_B=False)
            T.copy(acc, C[by * 64, bx * 32])
    return main
