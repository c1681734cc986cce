"""T.atomic_addx2 / T.atomic_addx4 (src/frontend/tileops_lang.c) from a fragment tile and from a
shared one, at element and slice addresses, on ragged tiles. tests/exec/test_lang.py
has the NumPy reference; test_emit_cuda simulates it against the C target."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def atomic_vec(M=100, N=72, bm=32, bn=32):

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            s = T.alloc_shared((bm, bn), "float32")
            T.copy(A[by * bm, bx * bn], s)
            for i, j in T.Parallel(bm, bn // 4):
                T.atomic_addx4(B[by * bm + i, bx * bn + j * 4], s[i, j * 4])
            for i, j in T.Parallel(bm, bn // 2):
                T.atomic_addx2(B[by * bm + i, bx * bn + j * 2:bx * bn + j * 2 + 2],
                               s[i, j * 2:j * 2 + 2])

    return main
