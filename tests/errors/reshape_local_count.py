# expect: error: T\.reshape: a view of 256 elements of the shared buffer 'S', which has 2048
# line: 12
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 32), "float16"), B: T.Tensor((64, 32), "float16")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_shared((64, 32), "float16")
        T.copy(A, S)
        S2 = T.reshape(S, (16, 16))
        T.copy(S2, B[0:16, 0:16])
