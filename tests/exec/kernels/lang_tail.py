"""TileLang's scalar helpers and aliases (src/frontend/tileops_lang.c), on ragged tiles:
T.alloc_buffer by scope, T.clamp, T.exp10, T.fabs, T.Select, T.bitwise_*, T.shift_*,
T.Serial, T.Unroll, T.loop_break, T.assume, T.serial with run-time starts and steps of
either sign, T.any_of, T.all_of, T.get_block_binding(s), T.reinterpret, T.dtype.
tests/exec/test_lang.py has the NumPy reference; test_emit_cuda runs it on the simulated
GPU against the C target."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2, 3, 4, 5, 6, 7])
def lang_tail(M=100, N=72, bm=32, bn=32):

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), I: T.Tensor((M, N), "int32"),
             F: T.Tensor((M, N), "float32"), J: T.Tensor((M, N), "int32"),
             C: T.Tensor((M, T.ceildiv(N, bn)), "int32"),
             D: T.Tensor((M, T.ceildiv(N, bn)), "int32"), G: T.Tensor((M, N), "int32"),
             H: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            T.assume(bx >= 0)
            gx, gy = T.get_block_bindings()
            a = T.alloc_buffer((bm, bn), "float32", scope="shared")
            f = T.alloc_buffer((bm, bn), "float32", scope="local.fragment")
            c = T.alloc_buffer((1,), "int32", scope="local.var")
            T.copy(A[by * bm, bx * bn], a)
            for i, j in T.Parallel(bm, bn):
                x = a[i, j]
                f[i, j] = (T.clamp(x, -0.5, 0.5) + T.exp10(x * 0.25) + T.fabs(x) * 2.0 +
                           T.Select(x > 0.0, x, -x * 3.0))
            T.copy(f, F[by * bm, bx * bn])
            for i, j in T.Parallel(bm, bn):
                x = a[i, j]
                h = T.reinterpret(T.cast(x, "float16"), "uint16")
                G[by * bm + i, bx * bn + j] = (
                    T.reinterpret(x, "int32") + T.cast(h, "int32") +
                    T.cast(T.reinterpret(T.reinterpret(h, "int16"), "uint16"), "int32") * 2)
                H[by * bm + i, bx * bn + j] = (
                    T.reinterpret(T.reinterpret(x * 3.0, "uint32"), "float32") +
                    T.cast(T.reinterpret(h, "float16"), "float32"))
            for i, j in T.Parallel(bm, bn):
                v = I[by * bm + i, bx * bn + j]
                J[by * bm + i, bx * bn + j] = (
                    T.bitwise_xor(T.bitwise_and(v, 0xff0),
                                  T.bitwise_or(T.shift_left(v, 3), T.shift_right(v, 2))) +
                    T.bitwise_not(v))
            for r in T.Serial(bm):
                c = 0
                for k in T.Unroll(bn):
                    if a[r, k] < 0.0:
                        T.loop_break()
                    c += 1
                C[gy * bm + r, T.get_block_binding()] = c
            neg = T.alloc_local((bn,), T.dtype("int32"))
            n1 = T.alloc_var("int32")
            n2 = T.alloc_var("int32")
            for r in T.serial(bm):
                for k in T.serial(bn):
                    neg[k] = T.if_then_else(a[r, k] < 0.0, 1, 0)
                n1 = 0
                for k in T.serial(r % 3, bn, 3):
                    if a[r, k] > 0.0:
                        n1 += 1
                n2 = 0
                for k in T.serial(bn - 1, r % 4 - 1, -2 - r % 2):
                    if a[r, k] > 0.0:
                        n2 += 1
                D[T.get_block_binding(1) * bm + r, gx] = (T.if_then_else(T.any_of(neg), 1, 0) +
                                      T.if_then_else(T.all_of(neg[0:4]), 2, 0) + n1 * 4 +
                                      n2 * 1024)

    return main
