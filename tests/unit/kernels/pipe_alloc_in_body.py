# Tiles allocated inside a T.Pipelined body (as TileLang's gemv_alloc_reducer writes them):
# the pipeline's prologue and the TMA producer fill them before the loop, so they are
# declared before it (the IR verifier checks every lowering of test_emit_cuda).
import tilelang.language as T

@T.prim_func
def main(a: T.Tensor((128, 256), "float16"), o: T.Tensor((128, 64), "float16")):
    with T.Kernel(2, threads=128) as bx:
        acc = T.alloc_fragment((64, 64), "float32")
        T.clear(acc)
        for k in T.Pipelined(4, num_stages=2):
            a_smem = T.alloc_shared((64, 64), "float16")
            T.copy(a[bx * 64, k * 64], a_smem)
            a_frag = T.alloc_fragment((64, 64), "float16")
            T.copy(a_smem, a_frag)
            for i, j in T.Parallel(64, 64):
                acc[i, j] += a_frag[i, j]
        T.copy(acc, o[bx * 64, 0])
