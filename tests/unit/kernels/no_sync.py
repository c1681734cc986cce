# pass_configs: TL_ENABLE_FAST_MATH builds with --use_fast_math (the source's second line
# says so; target_cuda.c reads it); TL_DISABLE_THREAD_STORAGE_SYNC leaves only the
# program's barriers, which here suffice (simulated against the C target).
import tilelang
import tilelang.language as T

FAST=False
@tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_DISABLE_THREAD_STORAGE_SYNC: True,
                            "tl.enable_fast_math": FAST})
def ns(M=100):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, 64), threads=64) as bx:
            s = T.alloc_shared((64,), "float32")
            for i in T.Parallel(64):
                s[i] = A[bx * 64 + i]
            T.sync_threads()
            for i in T.Parallel(64):
                B[bx * 64 + i] = s[63 - i] * 2.0 + s[i]
    return main
