# A GEMM written with TVM's WMMA intrinsics, as TVM programs write one (tileops_wmma.c):
# fragment buffers of scope wmma.*, A and B staged in shared memory by T.copy and loaded
# into fragments, T.tvm_mma_sync over K, the accumulators stored to global memory. Each
# warp computes a 16 x 32 tile (two accumulator fragments of one buffer, index j).
# A is [M][K] ([K][M] when A_COL, loaded col_major), B [K][N] ([N][K] when B_COL), C
# [M][N] ([N][M] when C_COL, stored col_major); C = A B + Bias, or A B + 0.5 (filled)
# when not BIAS: the first k-step's mma reads the initial fragment c0 and writes c
# (D != C), the rest accumulate in place.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def wmma_gemm(M=64, N=64, K=64, DT="float16", ACC="float32", A_COL=False, B_COL=True,
              C_COL=False, BIAS=False, WARPS=2):
    BM, BN, BK = 16 * WARPS, 32, 16
    a_shape = (K, M) if A_COL else (M, K)
    b_shape = (N, K) if B_COL else (K, N)
    c_shape = (N, M) if C_COL else (M, N)

    @T.prim_func
    def main(A: T.Tensor(a_shape, DT), B: T.Tensor(b_shape, DT), Bias: T.Tensor((M, N), ACC),
             C: T.Tensor(c_shape, ACC)):
        with T.Kernel(N // BN, M // BM, threads=32 * WARPS) as (bx, by):
            warp = T.get_thread_binding() // 32
            A_s = T.alloc_shared((BK, BM) if A_COL else (BM, BK), DT)
            B_s = T.alloc_shared((BN, BK) if B_COL else (BK, BN), DT)
            a = T.alloc_buffer((16, 16), DT, scope="wmma.matrix_a")
            b = T.alloc_buffer((2, 16, 16), DT, scope="wmma.matrix_b")
            c0 = T.alloc_fragment((2, 16, 16), ACC, scope="wmma.accumulator")
            c = T.alloc_buffer((32, 16), ACC, scope="wmma.accumulator")
            for j in range(2):
                if BIAS:
                    T.tvm_load_matrix_sync(
                        c0.data, 16, 16, 16, j,
                        T.access_ptr(Bias[by * BM + warp * 16, bx * BN + 16 * j], "r"), N,
                        "row_major")
                else:
                    T.tvm_fill_fragment(c0.data, 16, 16, 16, j, 0.5)
            for ko in T.serial(K // BK):
                if A_COL:
                    T.copy(A[ko * BK, by * BM], A_s)
                    T.tvm_load_matrix_sync(a.data, 16, 16, 16, 0,
                                           T.access_ptr(A_s[0, warp * 16], "r"), BM,
                                           "col_major")
                else:
                    T.copy(A[by * BM, ko * BK], A_s)
                    T.tvm_load_matrix_sync(
                        a.data, 16, 16, 16, 0,
                        T.tvm_access_ptr(T.dtype(DT), A_s.data, warp * 16 * BK,
                                         16 * BK, 1), BK, "row_major")
                if B_COL:
                    T.copy(B[bx * BN, ko * BK], B_s)
                else:
                    T.copy(B[ko * BK, bx * BN], B_s)
                for j in T.serial(2):
                    if B_COL:
                        T.tvm_load_matrix_sync(b.data, 16, 16, 16, j,
                                               T.access_ptr(B_s[16 * j, 0], "r"), BK, "col_major")
                    else:
                        T.tvm_load_matrix_sync(b.data, 16, 16, 16, j,
                                               T.access_ptr(B_s[0, 16 * j], "r"), BN, "row_major")
                    if ko == 0:
                        T.tvm_mma_sync(c.data, j, a.data, 0, b.data, j, c0.data, j)
                    else:
                        T.tvm_mma_sync(c.data, j, a.data, 0, b.data, j, c.data, j)
            for j in range(2):
                if C_COL:
                    T.tvm_store_matrix_sync(
                        c.data, 16, 16, 16, j,
                        T.access_ptr(C[bx * BN + 16 * j, by * BM + warp * 16], "w"), M,
                        "col_major")
                else:
                    T.tvm_store_matrix_sync(
                        c.data, 16, 16, 16, j,
                        T.access_ptr(C[by * BM + warp * 16, bx * BN + 16 * j], "w"), N,
                        "row_major")

    return main
