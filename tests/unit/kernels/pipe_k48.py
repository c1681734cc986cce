# The mma.sync mainloop of a cp.async pipeline (Stmt.gemm.pipe_wait: the wait and the
# barrier inside the gemm), on ragged edges: one k-step a tile, and three with fewer
# iterations than stages.
import tilelang
import tilelang.language as T

def pipe_k48(M=72, N=40, K=100):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 48), "float16")
            B_s = T.alloc_shared((48, 32), "float16")
            acc = T.alloc_fragment((64, 32), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 48), num_stages=4):
                T.copy(A[by * 64, k * 48], A_s)
                T.copy(B[k * 48, bx * 32], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C[by * 64, bx * 32])
    return main
