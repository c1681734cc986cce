# expect: error: .*T\.reduce_sum
# expect: dim
# line: 17
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def row_sum(M=64, N=32, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=128) as bx:
            A_local = T.alloc_fragment((M, N), dtype)
            B_local = T.alloc_fragment((M,), dtype)
            T.copy(A, A_local)
            T.reduce_sum(A_local, B_local, dim=2)
            T.copy(B_local, B)

    return main
