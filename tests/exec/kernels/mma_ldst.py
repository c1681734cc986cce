# T.ptx_ldmatrix, T.mma_fill and T.mma_store (tileops_mma.c): each lane gives ldmatrix the
# address of a row of a shared tile chosen by a permutation P (so the rows each lane
# receives tell which lane's address went where) and writes its registers out; then each
# lane's accumulator registers, partly zeroed by T.mma_fill, go to a shared tile per warp
# with T.mma_store (rows STRIDE apart) and from there to global memory.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def mma_ldst(DT="float16", NUM=4, TRANS=False, CT="float32", N=16, WARPS=2):
    NT = 32 * WARPS
    W = 16 // T.dtype(DT).itemsize  # elements in a 16-byte row
    NR = NUM * 4 // T.dtype(DT).itemsize  # elements of the registers ldmatrix fills
    STRIDE = N + 8

    @T.prim_func
    def main(S: T.Tensor((WARPS, 32, W), DT), P: T.Tensor((32,), "int32"),
             C: T.Tensor((2, NT, 8), CT), R: T.Tensor((2, NT, NR), DT),
             O: T.Tensor((2, WARPS * 16, STRIDE), CT)):
        with T.Kernel(2, threads=NT) as bx:
            tx = T.get_thread_binding()
            warp = tx // 32
            S_s = T.alloc_shared((WARPS, 32, W), DT)
            O_s = T.alloc_shared((WARPS * 16, STRIDE), CT)
            r = T.alloc_local((NR,), DT)
            c = T.alloc_local((8,), CT)
            T.copy(S, S_s)
            T.clear(O_s)
            T.ptx_ldmatrix(TRANS, NUM, T.access_ptr(S_s[warp, P[tx % 32] % 32, 0], "r"),
                           T.access_ptr(r[0], "w"))
            for i in T.serial(NR):
                R[bx, tx, i] = r[i]
            for i in T.serial(8):
                c[i] = C[bx, tx, i]
            T.mma_fill(CT, 2, c.data, 2)
            T.mma_store(CT, 16, N, T.access_ptr(O_s[warp * 16, 0], "w"), c.data, 0, STRIDE)
            T.copy(O_s, O[bx, :, :])

    return main
