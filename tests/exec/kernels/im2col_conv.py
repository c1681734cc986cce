"""A 2-d convolution (NHWC image, flattened (KH*KW*C, F) filter) as a GEMM over T.im2col
tiles, as TileLang's convolution example writes it (test_lang.py checks it against a
direct numpy convolution)."""
import tilelang
import tilelang.language as T


@tilelang.jit
def conv(N, C, H, W, F, K, S, D, P, block_M=64, block_N=32, block_K=32):
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1

    @T.prim_func
    def main(data: T.Tensor((N, H, W, C), "float32"), kernel: T.Tensor((K * K * C, F), "float32"),
             out: T.Tensor((N * OH * OW, F), "float32")):
        with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M), threads=128) as (
                bx, by):
            data_shared = T.alloc_shared((block_M, block_K), "float32")
            kernel_shared = T.alloc_shared((block_K, block_N), "float32")
            acc = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K * K * C, block_K), num_stages=2):
                T.im2col(data, data_shared, by, k, K, S, D, P)
                T.copy(kernel[k * block_K, bx * block_N], kernel_shared)
                T.gemm(data_shared, kernel_shared, acc)
            T.copy(acc, out[by * block_M, bx * block_N])

    return main
