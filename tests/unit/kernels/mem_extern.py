# Foreign code in the style of TileLang's dequantize GEMV examples: T.import_source of a
# source that is C for the C target and CUDA for the CUDA one (#ifdef __CUDACC__), a void
# function called per thread with T.access_ptr pointers to its T.alloc_local buffers (given
# a dtype, as the examples do), a function's result, and T.call_pure_extern of libm.
import tilelang
import tilelang.language as T

DEQUANT = r"""
#ifdef __CUDACC__
#define DEQ_FN __device__ inline
#else
#define DEQ_FN static inline
#endif
/* two unsigned 4-bit values per byte, low nibble first, minus 8, times scale */
DEQ_FN void decode_i4_to_f32(const uint8_t *q, float *out, int n, float scale) {
    for (int i = 0; i < n; i++) {
        out[2 * i] = (float)((q[i] & 15) - 8) * scale;
        out[2 * i + 1] = (float)((q[i] >> 4) - 8) * scale;
    }
}
DEQ_FN int count_bits(uint32_t x) {
    int c = 0;
    for (; x; x >>= 1) c += x & 1;
    return c;
}
"""


def dequant_gemv(N=64, K=64, threads=32, source=DEQUANT, func_name="decode_i4_to_f32"):
    @T.prim_func
    def main(A: T.Tensor((K,), "float32"), B: T.Tensor((N, K // 2), "uint8"),
             S: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32"),
             P: T.Tensor((N,), "int32"), E: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, threads), threads=threads) as bx:
            tx = T.get_thread_binding()
            q = T.alloc_local((4,), "uint8")
            w = T.alloc_local((8,), "float32")
            acc = T.alloc_local((1,), "float32")
            T.import_source(source)
            n = bx * threads + tx
            acc[0] = 0.0
            for ko in T.serial(K // 8):
                for v in T.vectorized(4):
                    q[v] = B[n, ko * 4 + v]
                T.call_extern(func_name, T.access_ptr(q, "r"), T.access_ptr(w, "w"), 4, S[n],
                              dtype="float32")
                for v in T.serial(8):
                    acc[0] += A[ko * 8 + v] * w[v]
            C[n] = acc[0]
            P[n] = T.call_extern("int32", "count_bits", T.cast(n, "uint32") * T.uint32(40503))
            for i in T.Parallel(threads):
                E[bx * threads + i] = T.call_pure_extern("float32", "sqrtf", S[bx * threads + i])
    return main
