"""T.reduce_bitand / reduce_bitor / reduce_bitxor (integer tiles, register fragments and
shared memory, clear=False too) and T.cummax (forward and reverse, into another tile), on
ragged tiles. tests/exec/test_math_names.py has the NumPy reference; test_emit_cuda runs it
on the simulated GPU (the register reductions as warp shuffles and a shared workspace)
against the C target."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2, 3, 4])
def math_reduce(M=50, N=40, bm=16, bn=32, dtype="int32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), X: T.Tensor((M, N), "float32"),
             R: T.Tensor((6, M, T.ceildiv(N, bn)), dtype), S: T.Tensor((M, N), dtype),
             Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            a = T.alloc_fragment((bm, bn), dtype)
            s = T.alloc_shared((bm, bn), dtype)
            r = T.alloc_fragment((bm,), dtype)
            q = T.alloc_shared((bm,), dtype)
            T.copy(A[by * bm, bx * bn], a)
            T.copy(A[by * bm, bx * bn], s)
            T.reduce_bitand(a, r, dim=1)
            T.copy(r, R[0, by * bm:(by + 1) * bm, bx])
            T.reduce_bitor(a, r, dim=1)
            T.copy(r, R[1, by * bm:(by + 1) * bm, bx])
            T.reduce_bitxor(a, r, dim=1)
            T.copy(r, R[2, by * bm:(by + 1) * bm, bx])
            T.reduce_bitxor(s, q, dim=1)
            T.copy(q, R[3, by * bm:(by + 1) * bm, bx])
            T.reduce_bitor(a, r, dim=1, clear=False)  # r: the xor, or'ed with the or
            T.copy(r, R[4, by * bm:(by + 1) * bm, bx])
            T.reduce_bitand(s, q, dim=-1, clear=False)  # q: the xor, and'ed with the and
            T.copy(q, R[5, by * bm:(by + 1) * bm, bx])
            T.cummax(s, dim=1)
            T.copy(s, S[by * bm, bx * bn])
            x = T.alloc_shared((bm, bn), "float32")
            y = T.alloc_fragment((bm, bn), "float32")
            T.copy(X[by * bm, bx * bn], x)
            T.cummax(x, y, dim=0, reverse=True)
            T.copy(y, Y[by * bm, bx * bn])

    return main
