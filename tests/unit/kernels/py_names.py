"""TileLang's Python-level names (src/frontend/tileops_py.c): T.SharedBuffer and
T.FragmentBuffer as T.macro parameter types, T.Ref, T.meta_class/T.inline, isinstance with
T.PrimExpr and T.IntImm, T.IntImm(dtype, v), the dtype helpers, T.Vectorized, T.parallel,
T.align_up, T.annotate_restrict_buffers, T.tvm_thread_invariant, T.has_let_value and
T.get_let_value, T.allocate, T.transpose, T.reduce, T.reducer_init/update and
T.q_multiply_shift(_per_axis). tests/exec/test_py_names.py has the NumPy and exact Python
references; test_emit_cuda runs it on the simulated GPU against the C target."""
import tilelang
import tilelang.language as T


@T.meta_class
class Scale:
    def __init__(self, k):
        self.k = k

    @T.inline
    def times(self, x):
        return x * self.k


@T.macro
def row_sums(s: T.SharedBuffer([16, 32], "float32"), acc: T.FragmentBuffer([16], "float32")):
    T.reduce(s, acc, "sum", 1, True)


@T.macro
def bump(x: T.Ref, k):
    x = x * 2 + k
    x += 1


@tilelang.jit(out_idx=[3, 4, 5, 6, 7])
def py_names(M=40, N=32, dtype="float32"):
    bm = 16
    assert T.is_float4_e2m1fn("float4_e2m1fn") and not T.is_float4_e2m1_unpacked(dtype)
    assert not T.is_float4(dtype) and T.is_f8f6f4_family("float8_e4m3")
    T.validate_gemm_ab_dtypes(dtype, T.get_tvm_dtype(dtype))
    seven = T.IntImm("int32", 7)
    assert isinstance(seven, T.IntImm) and isinstance(seven, T.PrimExpr)
    assert not isinstance(7, T.PrimExpr) and isinstance(dtype, T.AnyDType)
    sc = Scale(3.0)

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), X: T.Tensor((M, N), "int32"),
             Y: T.Tensor((M, N), "int32"), R: T.Tensor((M,), dtype),
             Q: T.Tensor((4, M, N), "int32"), P: T.Tensor((M, N), dtype),
             S: T.Tensor((T.ceildiv(M, bm), N), dtype), TT: T.Tensor((N, M), dtype)):
        with T.Kernel(T.ceildiv(M, bm), threads=128) as bx:
            T.annotate_restrict_buffers(A, X, Y)
            s = T.alloc_shared((bm, N), dtype)
            acc = T.alloc_fragment((bm,), dtype)
            r = T.alloc_reducer((N,), dtype)
            T.copy(A[bx * bm, 0], s)
            row_sums(s, acc)
            T.copy(acc, R[bx * bm])
            st = T.allocate((N, bm), dtype, "shared.dyn")
            T.transpose(s, st)
            T.copy(st, TT[0, bx * bm])
            T.reducer_init(r, 0.5)
            for i in T.parallel(2, bm + 2):
                for j in T.Vectorized(N):
                    if T.tvm_thread_invariant(bx * bm + i - 2 < M):
                        T.reducer_update(r[j], s[i - 2, j])
            T.finalize_reducer(r)
            cnt = T.alloc_var("int32", 0)
            bump(cnt, 3)
            for j in T.Parallel(N):
                S[bx, j] = r[j] + (cnt - 4)
            for i, j in T.Parallel(bm, N):
                g = bx * bm + i
                if g < M:
                    x = X[g, j]
                    y = Y[g, j]
                    w = s[i, j] * 0.5
                    assert T.has_let_value(w) and not T.has_let_value(j)
                    assert T.get_let_value(j) is None
                    P[g, j] = sc.times(s[i, j]) + T.align_up(j, seven) + T.get_let_value(w)
                    bump(P[bx * bm + i, j], 0.0)
                    Q[0, g, j] = T.q_multiply_shift(x, y, 31, j % 9 - 4)
                    Q[1, g, j] = T.q_multiply_shift(x, y, 15, 0)
                    Q[2, g, j] = T.q_multiply_shift_per_axis(x, y, j % 3, j % 5, 31, True, True)
                    Q[3, g, j] = T.q_multiply_shift_per_axis(x, y, j % 3, j % 5, 20, False, True)

    return main
