# A float32 T.gemm (TF32 operands, float32 accumulation) over a pipelined K loop: A and B
# in shared memory, A [K, M] (ta) and B [N, K] (tb) as stored, or A in registers (rs).
# Tiles need not divide the sizes (zeros past the edges).
import tilelang
import tilelang.language as T


def gemm(M=100, N=72, K=88, ta=False, tb=False, rs=False, bm=64, bn=32, bk=16):
    @T.prim_func
    def main(A: T.Tensor((K, M) if ta else (M, K), "float32"),
             B: T.Tensor((N, K) if tb else (K, N), "float32"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bk, bm) if ta else (bm, bk), "float32")
            B_s = T.alloc_shared((bn, bk) if tb else (bk, bn), "float32")
            A_f = T.alloc_fragment((bm, bk), "float32")
            acc = T.alloc_fragment((bm, bn), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                if ta:
                    T.copy(A[k * bk, by * bm], A_s)
                else:
                    T.copy(A[by * bm, k * bk], A_s)
                if tb:
                    T.copy(B[bx * bn, k * bk], B_s)
                else:
                    T.copy(B[k * bk, bx * bn], B_s)
                if rs:
                    T.copy(A_s, A_f)
                    T.gemm(A_f, B_s, acc, transpose_B=tb)
                else:
                    T.gemm(A_s, B_s, acc, transpose_A=ta, transpose_B=tb)
            T.copy(acc, C[by * bm, bx * bn])
    return main
