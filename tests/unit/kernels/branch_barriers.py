# Named barriers inside a branch on the thread index (TileLang's deepseek_v32
# topk_selector.py: a Hillis-Steele suffix sum by the first RADIX threads, between
# T.sync_threads(3, RADIX) calls under `if tx < RADIX`). The C target runs the branch as
# the threads of its range, statement by statement, so each step reads the previous
# step's sums; the other threads meanwhile take the `else` branch, with a barrier of
# their own.
import tilelang
import tilelang.language as T


def branch_barriers(n=64, threads=128):
    steps = 6  # 2**steps >= n

    @T.prim_func
    def main(X: T.Tensor((n,), "int32"), Y: T.Tensor((n,), "int32"),
             Z: T.Tensor((threads - n,), "int32")):
        with T.Kernel(1, threads=threads) as bx:
            tx = T.get_thread_binding()
            h = T.alloc_shared((n + 1,), "int32")
            r = T.alloc_shared((threads - n,), "int32")
            v = T.alloc_var("int32")
            T.fill(h, 0)
            T.sync_threads()
            if tx < n:
                h[tx] = X[tx]
                for i in T.serial(steps):
                    offset = 1 << i
                    T.sync_threads(3, n)
                    if tx < n - offset:
                        v = h[tx] + h[tx + offset]
                    T.sync_threads(3, n)
                    if tx < n - offset:
                        h[tx] = v
            else:
                r[tx - n] = tx * 2
                T.sync_threads(4, threads - n)
                v = r[threads - 1 - tx]
                T.sync_threads(4, threads - n)
                r[tx - n] = v + 1
            T.sync_threads()
            for i in T.Parallel(n):
                Y[i] = h[i]
            for i in T.Parallel(threads - n):
                Z[i] = r[i]

    return main
