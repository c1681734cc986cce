# A GEMM written against TileLang's mma.sync emitter, as examples/gemm/
# example_gemm_intrinsics.py is (compat/intrinsics/mma.py): shared tiles in the swizzled
# layout, ldmatrix_a / ldmatrix_b / mma per k-step, stmatrix to a 4-D shared tile (A stored
# by a T.Parallel nest, B by T.copy). A is
# [M][K] ([K][M] when A_T), B is [N][K] when B_T else [K][N]; C = A B in out_dtype.
import tilelang
import tilelang.language as T
from tilelang.cuda.intrinsics import get_swizzle_layout
from tilelang.cuda.intrinsics.macro.mma_macro_generator import TensorCoreIntrinEmitter
from tvm import DataType


def make_swizzle_layout(shared_buf):
    dtype = shared_buf.dtype
    shape = shared_buf.shape
    if shape[-1] * DataType(dtype).bits != 512:
        return T.Layout(shape, lambda *args: args)

    def transform_func(i, j):
        return list(get_swizzle_layout(i, j, shape[-1], dtype))

    return T.Layout(shape, transform_func)


@tilelang.jit(out_idx=[-1])
def mma_gemm(M=128, N=64, K=64, in_dtype="float16", out_dtype="float32",
             accum_dtype="float32", A_T=False, B_T=True, warps_m=2, warps_n=2,
             warp_m=32, warp_n=32, chunk=32):
    emitter = TensorCoreIntrinEmitter(
        a_dtype=in_dtype, b_dtype=in_dtype, accum_dtype=accum_dtype, a_transposed=A_T,
        b_transposed=B_T, block_row_warps=warps_m, block_col_warps=warps_n,
        warp_row_tiles=warp_m, warp_col_tiles=warp_n, chunk=chunk)
    block_M = warps_m * warp_m
    block_N = warps_n * warp_n
    micro_x = emitter.micro_size_x
    micro_y = emitter.micro_size_y
    threads = emitter.threads
    A_shape = (K, M) if A_T else (M, K)
    B_shape = (N, K) if B_T else (K, N)
    A_tile = (chunk, block_M) if A_T else (block_M, chunk)
    B_tile = (block_N, chunk) if B_T else (chunk, block_N)

    @T.prim_func
    def main(A: T.Tensor(A_shape, in_dtype), B: T.Tensor(B_shape, in_dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(A_tile, in_dtype)
            B_shared = T.alloc_shared(B_tile, in_dtype)
            C_shared = T.alloc_shared((block_M // micro_x, block_N // micro_y, micro_x, micro_y),
                                      out_dtype)
            A_local = T.alloc_local((emitter.warp_rows * emitter.local_size_a,), in_dtype)
            B_local = T.alloc_local((emitter.warp_cols * emitter.local_size_b,), in_dtype)
            C_local = T.alloc_local((emitter.warp_rows * emitter.warp_cols *
                                     emitter.local_size_out,), accum_dtype)
            T.annotate_layout({A_shared: make_swizzle_layout(A_shared),
                               B_shared: make_swizzle_layout(B_shared)})
            T.clear(C_local)
            for ko in T.Pipelined(K // chunk, num_stages=2):
                if A_T:
                    T.copy(A[ko * chunk, by * block_M], A_shared)
                else:  # a nest, as the upstream example: the CUDA target swizzles the
                    # tile it stores (a 16-byte ldmatrix row stays whole)
                    for i, k in T.Parallel(block_M, chunk):
                        A_shared[i, k] = A[by * block_M + i, ko * chunk + k]
                if B_T:
                    T.copy(B[bx * block_N, ko * chunk], B_shared)
                else:
                    T.copy(B[ko * chunk, bx * block_N], B_shared)
                for ki in T.serial(chunk // emitter.micro_size_k):
                    emitter.ldmatrix_a(A_local, A_shared, ki)
                    emitter.ldmatrix_b(B_local, B_shared, ki)
                    emitter.mma(A_local, B_local, C_local)
            emitter.stmatrix(C_local, C_shared)
            for i, j in T.Parallel(block_M, block_N):
                C[by * block_M + i, bx * block_N + j] = C_shared[i // micro_x, j // micro_y,
                                                                 i % micro_x, j % micro_y]

    return main
