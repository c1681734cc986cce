# Tile operations under a condition on the thread index, as TileLang's
# examples/deepseek_mhc/example_mhc_pre.py writes them: the `if` narrows them to the
# threads it admits (0..31 run the `then` branch's copy, reduction and T.Parallel loops,
# 32..95 the `else` branch's pipelined loop; an if / elif / elif chain one T.Parallel loop
# in each of 0..31, 32..63 and 64..95). T.get_thread_binding() stays the block's thread
# index in them.
import tilelang
import tilelang.language as T


def thread_if_tiles(M=3, N=64, H=8):
    @T.prim_func
    def main(X: T.Tensor((M, H, N), "float32"), W: T.Tensor((H,), "float32"),
             R: T.Tensor((M, H), "float32"), Y: T.Tensor((M, N), "float32"),
             Z: T.Tensor((M, 5), "int32")):
        with T.Kernel(M, threads=96) as b:
            ws = T.alloc_shared((H,), "float32")
            T.copy(W, ws)
            tx = T.get_thread_binding()
            if tx < 32:
                f = T.alloc_fragment((H, N), "float32")
                T.copy(X[b, 0:H, 0:N], f)
                m = T.alloc_fragment((H,), "float32")
                T.reduce_max(f, m, dim=1)
                for h in T.Parallel(H):
                    R[b, h] = m[h] * ws[h]
                if tx == 31:
                    Z[b, 0] = tx + 100
            else:
                acc = T.alloc_fragment((N,), "float32")
                T.clear(acc)
                for h in T.Pipelined(H, num_stages=2):
                    xs = T.alloc_shared((N,), "float32")
                    T.copy(X[b, h, 0:N], xs)
                    for n in T.Parallel(N):
                        acc[n] += xs[n] * ws[h]
                T.copy(acc, Y[b, 0:N])
                if tx == 32:
                    Z[b, 1] = tx
            if tx < 32:
                for i in T.Parallel(1):
                    Z[b, 4] = i + 5
            elif 32 <= tx and tx < 64:
                for i in T.Parallel(1):
                    Z[b, 2] = i + 7
            elif tx >= 64:
                for i in T.Parallel(1):
                    Z[b, 3] = i + 9

    return main
