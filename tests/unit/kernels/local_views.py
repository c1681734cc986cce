# T.reshape / T.view of fragment and shared buffers (TileLang's deepseek_v32
# fp8_lighting_indexer.py: s_reshaped = T.reshape(s, (block_N, block_Q, heads))): a gemm
# accumulator seen in 3-D, updated element-wise and reduced over its last dimension, and a
# shared tile seen as [rows/2, 2, cols], written element-wise and copied out whole. The
# front end resolves both views to index arithmetic on the base buffer (views.c).
import tilelang
import tilelang.language as T


def local_views(N=64, Q=4, H=8, D=32, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((N, D), dtype), B: T.Tensor((Q * H, D), dtype),
             W: T.Tensor((Q, H), "float32"), L: T.Tensor((N, Q), "float32"),
             S: T.Tensor((N // 2, 2, D), dtype), Z: T.Tensor((Q, H), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a_s = T.alloc_shared((N, D), dtype)
            b_s = T.alloc_shared((Q * H, D), dtype)
            a_pairs = T.reshape(a_s, (N // 2, 2, D))
            s = T.alloc_fragment((N, Q * H), "float32")
            s3 = T.reshape(s, (N, Q, H))
            w = T.alloc_fragment((Q, H), "float32")
            l = T.alloc_fragment((N, Q), "float32")
            z = T.alloc_fragment((Q * H,), "float32")
            z2 = T.view(z, (Q, H))
            for p, t, d in T.Parallel(N // 2, 2, D):
                a_pairs[p, t, d] = A[p * 2 + t, d]
            T.copy(B, b_s)
            T.copy(W, w)
            T.gemm(a_s, b_s, s, transpose_B=True, clear_accum=True)
            for i, j, k in T.Parallel(N, Q, H):
                s3[i, j, k] = T.max(s3[i, j, k], 0) * w[j, k]
            T.reduce_sum(s3, l, dim=-1, clear=True)
            T.copy(l, L)
            T.copy(a_pairs, S)
            T.fill(z2, 0.5)
            T.fill(z2[1, :], 2.0)
            z2[Q - 1, H - 1] = 7.0
            T.copy(z2, Z)

    return main
