# A local flag set inside T.Parallel and read outside: made block-wide.
import tilelang
import tilelang.language as T

def flag():
    @T.prim_func
    def main(A: T.Tensor((4, 64), "float32"), C: T.Tensor((4,), "int32")):
        with T.Kernel(4, threads=32) as bx:
            f = T.alloc_local((1,), "int32")
            f[0] = 0
            for i in T.Parallel(64):
                if A[bx, i] > 1.9:
                    f[0] = 1
            C[bx] = f[0]
    return main
