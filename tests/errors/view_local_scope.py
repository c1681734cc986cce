# expect: error: T\.reshape: tilec takes views of global, shared, fragment and local buffers of scalars \('bars' is barrier\)
# line: 11
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        bars = T.alloc_barrier(arrive_count=[128, 128])
        pairs = T.reshape(bars, (1, 2))
        for i in T.Parallel(128):
            B[i] = A[i]
