# A grid sized by a float scalar argument: refused on CUDA (int scalars may size a grid).
import tilelang
import tilelang.language as T

def g():
    @T.prim_func
    def main(A: T.Tensor((64,), "float32"), n: T.float32):
        with T.Kernel(T.cast(n, "int32"), threads=32) as bx:
            A[bx] = 1.0
    return main
