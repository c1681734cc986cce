"""Small kernels for the Python package's tests (tests/python). libtilec reads this file;
Python only imports it for the decorated factories."""
import tilec
import tilelang.language as T

OFFSET = 3.0  # a module constant the kernel reads (libtilec evaluates it from the text)
M_DYN = T.dynamic("M")


@tilec.jit(out_idx=[-1])
def scale_add(M=64, N=32, block_M=16, alpha=2.0, dtype="float32"):
    """C = A * alpha + B."""

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                C[bx * block_M + i, j] = A[bx * block_M + i, j] * alpha + B[bx * block_M + i, j]

    return main


def scale_add_plain(M=64, N=32, block_M=16, alpha=2.0, dtype="float32"):
    """The same kernel as an undecorated factory (for tilec.compile)."""

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                C[bx * block_M + i, j] = A[bx * block_M + i, j] * alpha + B[bx * block_M + i, j]

    return main


@tilec.jit(out_idx=[-1])
def add_offset(N=64, dtype="float32"):
    """B = A + OFFSET (the module constant)."""

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] + OFFSET

    return main


@tilec.jit(out_idx=[-1])
def axpy(N=64, dtype="float32"):
    """Y = alpha * X + shift, with scalar parameters."""

    @T.prim_func
    def main(X: T.Tensor((N,), dtype), alpha: T.float32, shift: T.int32,
             Y: T.Tensor((N,), dtype)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                Y[i] = X[i] * alpha + shift

    return main


@tilec.jit(out_idx=[-1])
def row_sum(N=32, block_M=8, dtype="float32"):
    """B[i] = sum(A[i, :]) for A of a symbolic number of rows M."""

    @T.prim_func
    def main(A: T.Tensor((M_DYN, N), dtype), B: T.Tensor((M_DYN,), dtype)):
        with T.Kernel(T.ceildiv(M_DYN, block_M), threads=128) as bx:
            A_local = T.alloc_fragment((block_M, N), dtype)
            B_local = T.alloc_fragment((block_M,), dtype)
            T.copy(A[bx * block_M, 0], A_local)
            T.reduce_sum(A_local, B_local, dim=1)
            T.copy(B_local, B[bx * block_M])

    return main


@tilec.jit(out_idx=[1, 2])
def two_outputs(N=16, dtype="float32"):
    """B = A + 1 and C = A * 2: two outputs."""

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] + 1
                C[i] = T.Cast("int32", A[i] * 2)

    return main


@tilec.jit(out_idx=[-1])
def broken(N=16):
    """A program error: an undefined name in the kernel body."""

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] + undefined_name

    return main


@T.prim_func
def negate(A: T.Tensor((32,), "float32"), B: T.Tensor((32,), "float32")):
    """A top-level prim_func (no factory)."""
    with T.Kernel(1, threads=32) as bx:
        for i in T.Parallel(32):
            B[i] = -A[i]
