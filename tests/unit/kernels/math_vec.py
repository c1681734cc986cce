"""TileLang's vector values and packed x2 arithmetic (tileops_vec.c), for float16x2,
bfloat16x2 and float32x2: T.add2, sub2, mul2, fma2, max2, min2, abs2, the vector
operators, T.Shuffle, T.extract_lane, T.vectorlow / vectorhigh / vectorcombine,
T.reinterpret between a vector and an integer of its width, and vector buffers (local,
fragment, shared, T.alloc_var, views of global buffers as vectors). tests/exec/test_vec_names.py checks every result bit for
bit against NumPy (each lane rounded once, as __hadd2 / __hfma2 do); test_emit_cuda the
simulated GPU against the C target."""
import tilelang
import tilelang.language as T

ROWS = 16


@T.macro
def put(U, row, j, v):
    U[row, j, 0] = T.extract_lane(v, 0)
    U[row, j, 1] = T.extract_lane(v, 1)


@tilelang.jit(out_idx=[3, 4, 6])
def math_vec(N=100, dtype="float16", bn=32):
    VT = T.float16x2 if dtype == "float16" else T.bfloat16x2 if dtype == "bfloat16" else T.float32x2
    UT = "uint64" if dtype == "float32" else "uint32"
    half = 32 if dtype == "float32" else 16
    blocks = (N + bn - 1) // bn

    @T.prim_func
    def main(A: T.Tensor((N, 2), dtype), B: T.Tensor((N, 2), dtype), C: T.Tensor((N, 2), dtype),
             U: T.Tensor((ROWS, N, 2), dtype), D: T.Tensor((blocks, 2), dtype),
             W: T.Tensor((N,), UT), V: T.Tensor((3, N, 2), dtype)):
        Av = T.Tensor((N,), VT, data=A.data)
        Vv = T.view(V, (3, N), dtype=VT)
        with T.Kernel(blocks, threads=64) as bx:
            F = T.alloc_fragment((bn,), VT)
            S = T.alloc_shared((bn,), VT)
            G = T.alloc_fragment((bn,), VT)
            for i in T.Parallel(bn):
                j = bx * bn + i
                x = VT(A[j, 0], A[j, 1])
                y = T.Shuffle([B[j, 0], B[j, 1]], [0, 1])
                z = VT(C[j, 0], C[j, 1])
                put(U, 0, j, T.add2(x, y))
                put(U, 1, j, T.sub2(x, y))
                put(U, 2, j, T.mul2(x, y))
                put(U, 3, j, T.fma2(x, y, z))
                put(U, 4, j, T.max2(x, y))
                put(U, 5, j, T.min2(x, y))
                put(U, 6, j, T.abs2(x))
                put(U, 7, j, x + y * 2.0 - z / y)
                put(U, 8, j, T.Shuffle([x, y], [1, 2]))
                put(U, 9, j, T.vectorcombine(VT, T.vectorhigh(dtype, x), T.vectorlow(dtype, y)))
                bits = T.reinterpret(UT, x)
                put(U, 10, j, T.reinterpret(VT, (bits >> half) | (bits << half)))
                Vv[0, j] = T.fma2(Av[j], Av[j], VT(1.0, -1.0))
                Vv[1, j] = T.mul2(T.reinterpret(VT, W[j]), Av[j])
                Vv[2, j] = T.reinterpret(VT, T.reinterpret(UT, Av[j]) >> half)
                F[i] = T.mul2(x, z)
                G[i] = T.max2(x, z)
                S[i] = -T.sub2(y, z)
            for i in T.Parallel(bn):
                j = bx * bn + i
                put(U, 11, j, F[i])
                put(U, 12, j, T.add2(S[i], F[bn - 1 - i]))
                U[13, j, 0] = T.extract_lane(F[i], 1)
                U[13, j, 1] = T.extract_lane(S[i], 0)
                put(U, 14, j, T.Cast(VT, T.cast(S[i], "float32x2") * 3.0))
                put(U, 15, j, G[i])
            acc = T.alloc_var(VT, init=VT(0.0, 1.0))
            L = T.alloc_local((2,), VT)
            for k in T.serial(bn):
                j = T.min(bx * bn + k, N - 1)
                L[k % 2] = VT(A[j, 0], A[j, 1])
                acc = T.fma2(L[k % 2], VT(B[j, 0], B[j, 1]), acc)
            D[bx, 0] = T.extract_lane(acc, 0)
            D[bx, 1] = T.extract_lane(acc, 1)

    return main
