import tilelang
import tilelang.language as T

# T.gemm_sp on sparse tensor cores: a first kernel writes valid ordered 2:4 metadata E
# (uint16, 4 bits per group of 4 along K), the second multiplies the compressed A by B and
# by a transposed Bt through a 2-stage pipeline (A_sparse, E and B tiles staged).


def field(x):  # a valid ordered pair of in-group indices: i0 < i1, as 4 bits
    i0 = x % 3
    return i0 | ((i0 + 1 + (x // 3) % (3 - i0)) << 2)


@tilelang.jit(out_idx=[-2, -1])
def gemm_sp(M=128, N=64, K=128, block_M=64, block_N=64, block_K=64, dtype="float16"):
    e_dtype = "uint16"
    e_factor = 16

    @T.prim_func
    def main(A_sparse: T.Tensor((M, K // 2), dtype), E: T.Tensor((M, K // e_factor), e_dtype),
             B: T.Tensor((K, N), dtype), Bt: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), "float32"), D: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i, j in T.Parallel(M, K // e_factor):
                x = i * 7 + j * 4 + bx
                E[i, j] = field(x) | (field(x + 1) << 4) | (field(x + 2) << 8) | (field(x + 3) << 12)
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K // 2), dtype)
            E_shared = T.alloc_shared((block_M, block_K // e_factor), e_dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            Bt_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            D_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            T.clear(D_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A_sparse[by * block_M, k * block_K // 2], A_shared)
                T.copy(E[by * block_M, k * block_K // e_factor], E_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.copy(Bt[bx * block_N, k * block_K], Bt_shared)
                T.gemm_sp(A_shared, E_shared, B_shared, C_local)
                T.gemm_sp(A_shared, E_shared, Bt_shared, D_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])
            T.copy(D_local, D[by * block_M, bx * block_N])

    return main
