"""A grid sized by an int scalar argument, as varlen attention sizes its grid by
max_seqlen_q: rows [0, n) of A become A + 1, the rest stay (tests/exec/test_lang.py)."""
import tilelang.language as T

M = 1000
block = 64


@T.prim_func
def add_first_rows(A: T.Tensor((M, 8), "float32"), n: T.int32):
    with T.Kernel(T.ceildiv(n, block), threads=64) as bx:
        for i, j in T.Parallel(block, 8):
            if bx * block + i < n:
                A[bx * block + i, j] = A[bx * block + i, j] + 1.0
