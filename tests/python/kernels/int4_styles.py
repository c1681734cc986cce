"""T.int4 from Python in TileLang's two styles, run unchanged under the compat layer: an
eager kernel (sizes from the packed int8 tensors: K is twice their last dimension) and
gemm_int4's factory compiled with tilelang.compile; both checked against torch's exact
integer product. Prints "int4 styles OK"."""
import torch
import tilelang
import tilelang.language as T

@tilelang.jit
def gemm4(A, B, block_M=32, block_N=32, block_K=64):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), T.int4)
    B: T.Tensor((N, K), T.int4)
    C = T.empty((M, N), T.int32)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_s = T.alloc_shared((block_M, block_K), T.int4)
        B_s = T.alloc_shared((block_N, block_K), T.int4)
        acc = T.alloc_fragment((block_M, block_N), T.int32)
        T.clear(acc)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            T.copy(A[by * block_M, k * block_K], A_s)
            T.copy(B[bx * block_N, k * block_K], B_s)
            T.gemm(A_s, B_s, acc, transpose_B=True)
        T.copy(acc, C[by * block_M, bx * block_N])
    return C

def pack(t):
    t = t.to(torch.int16)
    return ((t[..., ::2] & 15) | ((t[..., 1::2] & 15) << 4)).to(torch.int8)

a = torch.randint(-8, 8, (64, 128), dtype=torch.int8)
b = torch.randint(-8, 8, (32, 128), dtype=torch.int8)
c = gemm4(pack(a), pack(b))
torch.testing.assert_close(c, a.int() @ b.int().T, rtol=0, atol=0)


def matmul_nt_int4(M, N, K, block_M, block_N, block_K, threads=128):
    @T.prim_func
    def main(A: T.Tensor((M, K), T.int4), B: T.Tensor((N, K), T.int4),
             C: T.Tensor((M, N), T.int32)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), T.int4)
            B_shared = T.alloc_shared((block_N, block_K), T.int4)
            C_local = T.alloc_fragment((block_M, block_N), T.int32)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[bx * block_N, ko * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main


kernel = tilelang.compile(matmul_nt_int4(96, 64, 192, 64, 32, 64), out_idx=-1)
a = torch.randint(-8, 8, (96, 192), dtype=torch.int8)
b = torch.randint(-8, 8, (64, 192), dtype=torch.int8)
torch.testing.assert_close(kernel(pack(a), pack(b)), a.int() @ b.int().T, rtol=0, atol=0)
print("int4 styles OK")
