# Two uses that want different register layouts for one fragment (acc by the gemm and
# transposed by the loop): it stays in shared memory, the result is still right (the
# simulation checks "conflict"), and a remark names both lines (19 and 20).
import tilelang
import tilelang.language as T

def conflict(M=32, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, M), dtype), B: T.Tensor((M, M), dtype),
             C: T.Tensor((M, M), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, M), dtype)
            B_s = T.alloc_shared((M, M), dtype)
            acc = T.alloc_fragment((M, M), "float32")
            sym = T.alloc_fragment((M, M), "float32")
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.clear(acc)
            T.gemm(A_s, B_s, acc)
            for i, j in T.Parallel(M, M):
                sym[i, j] = acc[i, j] + acc[j, i]
            T.copy(sym, C)
    return main
