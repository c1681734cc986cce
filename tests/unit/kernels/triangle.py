# FLOPs of a loop whose trip count depends on the block index (causal attention).
import tilelang.language as T
@T.prim_func
def tri(A: T.Tensor((64, 16), "float16"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(4, threads=128) as bx:
        a = T.alloc_shared((16, 16), "float16")
        acc = T.alloc_fragment((16, 16), "float32")
        n = T.min(bx + 1, 4)
        for k in T.serial(n):
            T.gemm(a, a, acc)
