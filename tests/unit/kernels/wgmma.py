# wgmma (sm_90a): a pipelined 128 x 128 x 64 tile, B row-major (MN-major: two 64-column
# panels), two warpgroups.
import tilelang
import tilelang.language as T

def wgmma(M=256, N=256, K=512, dtype="bfloat16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(N // 128, M // 128, threads=256) as (bx, by):
            A_s = T.alloc_shared((128, 64), dtype)
            B_s = T.alloc_shared((64, 128), dtype)
            acc = T.alloc_fragment((128, 128), "float32")
            T.clear(acc)
            for k in T.Pipelined(K // 64, num_stages=3):
                T.copy(A[by * 128, k * 64], A_s)
                T.copy(B[k * 64, bx * 128], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C[by * 128, bx * 128])
    return main
