# T.im2col tiles times a flattened filter: a padded, strided 3x3 convolution as a GEMM
# (the simulation checks the CUDA target against the C target).
import tilelang
import tilelang.language as T

def im2col(N=2, C=8, H=9, W=7, F=32, K=3, S=2, D=1, P=1, bm=32, bn=32, bk=16):
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1

    @T.prim_func
    def main(x: T.Tensor((N, H, W, C), "float16"), w: T.Tensor((K * K * C, F), "float16"),
             out: T.Tensor((N * OH * OW, F), "float32")):
        with T.Kernel(T.ceildiv(F, bn), T.ceildiv(N * OH * OW, bm), threads=128) as (bx, by):
            xs = T.alloc_shared((bm, bk), "float16")
            ws = T.alloc_shared((bk, bn), "float16")
            acc = T.alloc_fragment((bm, bn), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K * K * C, bk), num_stages=2):
                T.im2col(x, xs, by, k, K, S, D, P)
                T.copy(w[k * bk, bx * bn], ws)
                T.gemm(xs, ws, acc)
            T.copy(acc, out[by * bm, bx * bn])
    return main
