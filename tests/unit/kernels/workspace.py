# A workspace between two kernels; a dynamic size; a scalar parameter.
import tilelang
import tilelang.language as T

def ws(block=32):
    N = T.dynamic("N")

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), alpha: T.float32,
             B: T.Tensor((N,), "float32")):
        W = T.alloc_global((N,), "float32")
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                W[bx * block + i] = A[bx * block + i] * alpha
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = W[N - 1 - (bx * block + i)]
    return main
