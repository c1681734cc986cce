# Explicit memory widths: T.ldg32 .. T.ldg256, T.lds*/T.sts* through shared memory,
# T.stg* (predicated too), T.__ldg; bit patterns (a float16 NaN's payload, float64 and
# int8 words) must survive.
import tilelang
import tilelang.language as T

def mem_wide():
    @T.prim_func
    def main(A: T.Tensor((4, 64), "float16"), B: T.Tensor((4, 64), "float16"),
             X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float32"),
             D: T.Tensor((32,), "float64"), E: T.Tensor((32,), "float64"),
             I8: T.Tensor((128,), "int8"), J8: T.Tensor((128,), "int8"),
             W: T.Tensor((32,), "uint32")):
        with T.Kernel(4, threads=8) as bx:
            tx = T.get_thread_binding()
            S = T.alloc_shared((64,), "float16")
            v = T.ldg128(A[bx, tx * 8:tx * 8 + 8])
            T.sts128(S[tx * 8], v)
            T.sync_threads()
            w = T.lds64(S[(7 - tx) * 8:(7 - tx) * 8 + 4])
            T.stg64(B[bx, tx * 8:tx * 8 + 4], w)
            T.stg64(B[bx, tx * 8 + 4], T.ldg64(A[bx, tx * 8 + 4]), pred=tx < 4)
            T.stg32(Y[bx * 16 + tx * 2], T.ldg32(X[bx * 16 + tx * 2]))
            T.stg32(Y[bx * 16 + tx * 2 + 1], T.__ldg(X[bx * 16 + tx * 2 + 1]) * 2.0)
            if tx < 2:
                T.stg256(E[bx * 8 + tx * 4:bx * 8 + tx * 4 + 4], T.ldg256(D[bx * 8 + tx * 4]))
            T.stg32(J8[bx * 32 + tx * 4:bx * 32 + tx * 4 + 4],
                    T.ldg32(I8[bx * 32 + tx * 4], pred=tx % 2 == 0))
            W[bx * 8 + tx] = T.lds32(S[tx * 2]) ^ T.ldg32(A[bx, tx * 2 + 1])
    return main
