# Loops that run in order get a note that names the copy and what stops it: a tile the
# kernel also reads after the loop; a source the kernel writes.
import tilelang
import tilelang.language as T

def kept(M=64, N=64, K=256):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32"), D: T.Tensor((32, N), "float16")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, 32), "float16")
            B_s = T.alloc_shared((32, N), "float16")
            acc = T.alloc_fragment((M, N), "float32")
            T.clear(acc)
            T.copy(A[0, 0], A_s)
            for k in T.Pipelined(K // 32, num_stages=2):
                T.copy(B[k * 32, 0], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C)
            T.copy(B_s, D)
    return main
