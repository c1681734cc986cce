# T.sync_grid: every block writes its row of W, and after the grid barrier reads the next
# block's row (written by another block, later in any sequential order) and the last
# block's, so a barrier that does not wait for every block gives stale rows.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def grid_sync(G=6, N=64):

    @T.prim_func
    def main(A: T.Tensor((G, N), "float32"), W: T.Tensor((G, N), "float32"),
             B: T.Tensor((G, N), "float32")):
        with T.Kernel(G, threads=64) as bx:
            S = T.alloc_shared((N,), "float32")
            T.copy(A[bx, :], S)
            for i in T.Parallel(N):
                W[bx, i] = S[i] * 2.0 + bx
            T.sync_grid()
            for i in T.Parallel(N):
                B[bx, i] = W[(bx + 1) % G, i] + W[G - 1, i] * 0.5
            T.sync_grid()
            for i in T.Parallel(N):
                W[bx, i] = B[(bx + G - 1) % G, i]
    return main
