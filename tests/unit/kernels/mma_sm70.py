# T.ptx_mma_sm70 (TileLang's m16n16k4 of one warp on Volta's mma.sync.m8n8k4): each lane
# loads its A, B and C registers straight from global memory by TileLang's sm70 lane
# layouts (quad pair q = lane % 16 / 4 owns rows 8 (q % 2) .. + 7 and columns
# 4 (q / 2) + {0..3, 8..11}), two warps each run two k-steps (K = 8) at nonzero register
# offsets, and each lane writes its D registers back.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mma_sm70(A_COL=False, B_COL=False, CT="float32"):
    cn = "fp32" if CT == "float32" else "fp16"

    @T.prim_func
    def main(A: T.Tensor((2, 16, 8), "float16"), B: T.Tensor((2, 8, 16), "float16"),
             C: T.Tensor((2, 16, 16), CT), D: T.Tensor((2, 16, 16), CT)):
        with T.Kernel(1, threads=64) as bx:
            tx = T.get_thread_binding()
            w = tx // 32
            q = tx % 16 // 4
            p = tx % 4 + 4 * (tx % 32 // 16)
            a = T.alloc_local((8,), "float16")
            b = T.alloc_local((8,), "float16")
            c = T.alloc_local((16,), CT)
            for s in T.serial(2):
                for i in T.serial(4):
                    if A_COL:
                        a[4 * s + i] = A[w, 8 * (q % 2) + i + 4 * (p // 4), 4 * s + p % 4]
                    else:
                        a[4 * s + i] = A[w, 8 * (q % 2) + p, 4 * s + i]
                    if B_COL:
                        b[4 * s + i] = B[w, 4 * s + i, 4 * (q // 2) + p % 4 + 8 * (p // 4)]
                    else:
                        n = i + 4 * (p // 4)
                        b[4 * s + i] = B[w, 4 * s + p % 4, 4 * (q // 2) + n % 4 + 8 * (n // 4)]
            for i in T.serial(8):
                row = p
                col = i
                if CT == "float32":
                    row = p % 2 + 2 * (i // 2 % 2) + 4 * (p // 4)
                    col = 2 * (p % 4 // 2) + i % 2 + 4 * (i // 4)
                c[8 + i] = C[w, 8 * (q % 2) + row, 4 * (q // 2) + col % 4 + 8 * (col // 4)]
            for s in T.unroll(2):
                T.ptx_mma_sm70("m16n16k4", "col" if A_COL else "row", "col" if B_COL else "row",
                               "fp16", "fp16", cn, a.data, 4 * s, b.data, 4 * s, c.data, 8)
            for i in T.serial(8):
                row = p
                col = i
                if CT == "float32":
                    row = p % 2 + 2 * (i // 2 % 2) + 4 * (p // 4)
                    col = 2 * (p % 4 // 2) + i % 2 + 4 * (i // 4)
                D[w, 8 * (q % 2) + row, 4 * (q // 2) + col % 4 + 8 * (col // 4)] = c[8 + i]

    return main
