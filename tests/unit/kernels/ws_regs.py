# Three consumer warp groups of 192 x 256 accumulators (128 registers each): with a
# producer warp group a thread may hold 128 registers, which the fragment estimate
# allows (regs_fit) but ptxas cannot fit (C7602). The build then compiles the kernel
# again without the producer warp group (cp.async), with a note.
import tilelang
import tilelang.language as T

def wsr(M=192, N=256, K=128, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, 1, threads=384) as (bx, by):
            A_s = T.alloc_shared((M, 64), dtype)
            B_s = T.alloc_shared((64, N), dtype)
            acc = T.alloc_fragment((M, N), "float32")
            T.clear(acc)
            for k in T.Pipelined(K // 64, num_stages=3):
                T.copy(A[0, k * 64], A_s)
                T.copy(B[k * 64, 0], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C)
    return main
