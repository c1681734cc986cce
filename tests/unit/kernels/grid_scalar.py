import tilelang
import tilelang.language as T

def g():
    @T.prim_func
    def main(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(n, threads=32) as bx:
            A[bx] = 1.0
    return main
