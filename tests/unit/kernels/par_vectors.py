# T.Parallel nests over global and shared memory only (no register fragment): each thread
# moves whole 16-byte vectors. A gather under a condition that holds for whole runs is one
# guarded vector load stored as is; a float32 result is computed per element from vector
# loads; a condition that splits runs (j < 50) leaves its load per element.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def k(M=64, N=64, rows=50):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float32"),
             C: T.Tensor((M, N), "float32"), D: T.Tensor((M, N), "float16")):
        with T.Kernel(1, threads=128) as bx:
            S = T.alloc_shared((M, N), "float16")
            for i, j in T.Parallel(M, N):
                S[i, j] = T.if_then_else(i < rows, A[(i * 7) % M, j], T.float16(0))
            for i, j in T.Parallel(M, N):
                C[i, j] = T.Cast("float32", S[i, j]) * 2 + B[i, j]
            for i, j in T.Parallel(M, N):
                D[i, j] = T.if_then_else(j < 50, A[i, j], T.float16(0))
    return main
