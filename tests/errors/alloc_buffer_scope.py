# expect: T.alloc_buffer: scope "local.weird" is not supported
# line: 12
import tilelang
import tilelang.language as T


def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "int32")):
        with T.Kernel(1, threads=128) as bx:
            s = T.alloc_buffer((4,), "float32",
                               scope="local.weird")

    return main
