import tilelang
import tilelang.language as T

def both():
    @T.prim_func
    def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            t = T.alloc_local((1,), "float32")
            for i in T.Parallel(64):
                t[0] = A[i]
                B[i] = t[0]
            B[0] = t[0]
    return main
