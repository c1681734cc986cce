# expect: error: T\.view: tilec takes views of contiguous buffers in their own dtype \('S' is shared float16\)
# line: 12
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 32), "float16"), B: T.Tensor((64, 16), "float32")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_shared((64, 32), "float16")
        T.copy(A, S)
        S2 = T.view(S, (64, 16), dtype="float32")
        T.copy(S2, B)
