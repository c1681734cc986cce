# A pipelined loop inside a serial one: the prologue of the next run refills stages the
# last run still reads, after a barrier.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def k(M=128, N=128, K=256, bM=64, bN=64, bK=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((4, M, N), "float32")):
        with T.Kernel(N // bN, M // bM, threads=128) as (bx, by):
            A_s = T.alloc_shared((bM, bK), "float16")
            B_s = T.alloc_shared((bK, bN), "float16")
            acc = T.alloc_fragment((bM, bN), "float32")
            T.clear(acc)
            for r in T.serial(4):
                for k in T.Pipelined(K // bK, num_stages=3):
                    T.copy(A[by * bM, k * bK], A_s)
                    T.copy(B[k * bK, bx * bN], B_s)
                    T.gemm(A_s, B_s, acc)
            T.copy(acc, C[0, by * bM, bx * bN])
    return main
