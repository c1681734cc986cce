# expect: T.get_block_binding: dim 1, but the kernel.s grid has 1 dimension
# line: 10
import tilelang
import tilelang.language as T

def k(M=64):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(2, threads=32) as bx:
            A[T.get_block_binding(1)] = 1.0
    return main
