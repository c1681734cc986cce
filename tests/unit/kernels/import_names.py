# T.import_source code written against TileLang's CUDA prelude (its dequantize examples:
# `uint *h = reinterpret_cast<uint *>(out)`, asm operands of type uint): the short
# unsigned names uint, ushort, uchar and ulong, which tl_cuda.h declares for NVRTC. The
# CUDA half also runs a lop3 instruction; the C half computes the same with stdint types.
import tilelang
import tilelang.language as T

UNPACK = r"""
#ifdef __CUDACC__
__device__ inline uint lop3_and_or(uint a, uint b, uint c) { /* (a & b) | c */
#ifdef __CUDA_ARCH__
    uint r;
    asm volatile("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return (a & b) | c;
#endif
}
/* eight 4-bit values, low nibble first, each times 3, plus 0x100 * the byte's index */
__device__ inline void unpack_nibbles(const uchar *q, ushort *out, int n) {
    uint word = 0;
    for (int i = 0; i < 4; i++) word |= (uint)q[i] << (8 * i);
    for (int i = 0; i < n; i++) {
        ulong v = lop3_and_or(word >> (4 * i), 15u, 0u);
        out[i] = (ushort)(v * 3u + 0x100u * (uint)(i / 2));
    }
}
#else
static inline void unpack_nibbles(const uint8_t *q, uint16_t *out, int n) {
    uint32_t word = 0;
    for (int i = 0; i < 4; i++) word |= (uint32_t)q[i] << (8 * i);
    for (int i = 0; i < n; i++)
        out[i] = (uint16_t)(((word >> (4 * i)) & 15u) * 3u + 0x100u * (uint32_t)(i / 2));
}
#endif
"""


def import_names(N=64, threads=32):
    @T.prim_func
    def main(B: T.Tensor((N, 4), "uint8"), C: T.Tensor((N, 8), "uint16")):
        with T.Kernel(T.ceildiv(N, threads), threads=threads) as bx:
            tx = T.get_thread_binding()
            q = T.alloc_local((4,), "uint8")
            d = T.alloc_local((8,), "uint16")
            T.import_source(UNPACK)
            n = bx * threads + tx
            for v in T.serial(4):
                q[v] = B[n, v]
            T.call_extern("unpack_nibbles", T.access_ptr(q, "r"), T.access_ptr(d, "w"), 8,
                          dtype="uint16")
            for v in T.serial(8):
                C[n, v] = d[v]

    return main
