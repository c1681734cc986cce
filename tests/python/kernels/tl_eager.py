"""Kernels in the program shapes TileLang users write today (tests/python/test_styles.py):
eager style (the body is the kernel, T.const sizes, T.empty outputs), factories with
annotated parameters, T.Pipelined schedules without group=."""
import tilelang
import tilelang.language as T


@tilelang.jit
def matmul(A, B, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    """upstream's examples/gemm/example_gemm.py, as written."""
    M, N, K = T.const("M, N, K")

    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)

        T.copy(C_local, C[by * block_M, bx * block_N])

    return C


@tilelang.jit
def sum_and_scaled(X, bias, scale: float = 2.0, block: int = 64):
    """Two outputs, returned in an order other than the one they were made in; a typed
    scalar run-time parameter declared in the body; T.const sizes with spaces."""
    N = T.const("N")
    X: T.Tensor((N,), T.float32)
    bias: T.float32
    Y = T.empty((N,), T.float32)
    S = T.empty((1,), T.float32)
    with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
        for i in T.Parallel(block):
            if bx * block + i < N:
                Y[bx * block + i] = X[bx * block + i] * scale + bias
                T.atomic_add(S[0], X[bx * block + i])
    return S, Y


@tilelang.jit(out_idx=[-1])
def cast_rows(rows: int, cols: int, in_dtype: T.dtype = T.float32,
              out_dtype: T.dtype = T.dtype("float16"), block_rows: int = 4):
    """A factory whose parameters carry annotations (T.dtype among them)."""

    @T.prim_func
    def main(A: T.Tensor((rows, cols), in_dtype), B: T.Tensor((rows, cols), out_dtype)):
        with T.Kernel(T.ceildiv(rows, block_rows), threads=128) as bx:
            for i, j in T.Parallel(block_rows, cols):
                B[bx * block_rows + i, j] = A[bx * block_rows + i, j]

    return main


@tilelang.jit(out_idx=[-1])
def scaled_copy_pipelined(n=256, block=64):
    """T.Pipelined(order=, stage=) without group=: one statement a group (TileLang 0.1.15)."""

    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(1, threads=64):
            A_s = T.alloc_shared((block,), T.float32)
            B_s = T.alloc_shared((block,), T.float32)
            for k in T.Pipelined(n // block, num_stages=2, order=[-1, 0, 1], stage=[-1, 0, 0]):
                T.copy(A[k * block], A_s)
                for i in T.Parallel(block):
                    B_s[i] = A_s[i] * 3.0
                T.copy(B_s, B[k * block])

    return main


@tilelang.jit
def block_sums(X, block_size: int = 32, dtype=T.float32):
    """A size computed from a T.const one with tilelang.cdiv (upstream's
    deepseek_nsa/example_tilelang_nsa_bwd.py: `NS = tilelang.cdiv(seq_len, BS)`), used in
    an output's shape and the grid."""
    batch, seq_len = T.const("batch, seq_len")
    NS = tilelang.cdiv(seq_len, block_size)
    X: T.Tensor((batch, seq_len), dtype)
    Y = T.empty((batch, NS), dtype)
    with T.Kernel(NS, batch, threads=32) as (i, b):
        acc = T.alloc_fragment((block_size,), dtype)
        for j in T.Parallel(block_size):
            acc[j] = T.if_then_else(i * block_size + j < seq_len, X[b, i * block_size + j], 0)
        s = T.alloc_fragment((1,), dtype)
        T.reduce_sum(acc, s, dim=0)
        Y[b, i] = s[0]
    return Y
