# T.gemm_sp over a pipelined K loop: C = A * B with A 2:4 sparse (1:2 for float32) given
# as its kept values A_sparse (M x K/2, [K/2][M] when ta) and metadata E (M x K/ef, [K/ef][M]
# when te), B [K][N] ([N][K] when tb). ef = E's bits / 4 * the group (4; float32: 2).
# clear: the gemm clears C itself (clear_accum on the first step) instead of T.clear.
import tilelang
import tilelang.language as T


def gemm_sp(M=128, N=64, K=128, dtype="float16", e_dtype="int16", accum="float32", ta=False,
            tb=False, te=False, clear=False, bm=64, bn=64, bk=64, stages=2, threads=128):
    group = 2 if dtype == "float32" else 4
    ef = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32}[e_dtype]
    ef = ef // 4 * group

    @T.prim_func
    def main(A_sparse: T.Tensor((K // 2, M) if ta else (M, K // 2), dtype),
             E: T.Tensor((K // ef, M) if te else (M, K // ef), e_dtype),
             B: T.Tensor((N, K) if tb else (K, N), dtype),
             C: T.Tensor((M, N), accum)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=threads) as (bx, by):
            A_s = T.alloc_shared((bk // 2, bm) if ta else (bm, bk // 2), dtype)
            E_s = T.alloc_shared((bk // ef, bm) if te else (bm, bk // ef), e_dtype)
            B_s = T.alloc_shared((bn, bk) if tb else (bk, bn), dtype)
            acc = T.alloc_fragment((bm, bn), accum)
            if not clear:
                T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=stages):
                if ta:
                    T.copy(A_sparse[k * bk // 2, by * bm], A_s)
                else:
                    T.copy(A_sparse[by * bm, k * bk // 2], A_s)
                if te:
                    T.copy(E[k * bk // ef, by * bm], E_s)
                else:
                    T.copy(E[by * bm, k * bk // ef], E_s)
                if tb:
                    T.copy(B[bx * bn, k * bk], B_s)
                else:
                    T.copy(B[k * bk, bx * bn], B_s)
                T.gemm_sp(A_s, E_s, B_s, acc, transpose_A=ta, transpose_E=te, transpose_B=tb,
                          clear_accum=clear and k == 0)
            T.copy(acc, C[by * bm, bx * bn])
    return main
