# T.alloc_reducer as TileLang's gemv example writes it (gemv_alloc_reducer): a T.Parallel
# loop over a tile reduces its rows into the reducer with `+=`, T.finalize_reducer, then a
# copy out. int32: exact in any order of the adds.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def reducer(M=128, N=256, block_M=64, block_N=64):
    @T.prim_func
    def main(a: T.Tensor((M, N), "int32"), x: T.Tensor((N,), "int32"), o: T.Tensor((M,), "int32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as i0_m:
            o_reducer = T.alloc_reducer(block_M, "int32", replication="all")
            T.clear(o_reducer)
            for i0_n in T.Pipelined(T.ceildiv(N, block_N), num_stages=2):
                a_smem = T.alloc_shared((block_M, block_N), "int32")
                T.copy(a[i0_m * block_M, i0_n * block_N], a_smem)
                a_frag = T.alloc_fragment((block_M, block_N), "int32")
                T.copy(a_smem, a_frag)
                x_frag = T.alloc_fragment(block_N, "int32")
                T.copy(x[i0_n * block_N], x_frag)
                for i1_m, i1_n in T.Parallel(block_M, block_N):
                    o_reducer[i1_m] += a_frag[i1_m, i1_n] * x_frag[i1_n]
            T.finalize_reducer(o_reducer)
            T.copy(o_reducer, o[i0_m * block_M])
    return main
