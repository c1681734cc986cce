# Tile ops given one element (TileLang's deepseek_v32 topk_selector.py:
# T.fill(s_num_input[0], 0)): T.fill and T.clear of x[i] cover the region of extent 1 in
# each dimension from there, and T.copy between two elements is one store.
import tilelang
import tilelang.language as T


def fill_element(n=64):
    @T.prim_func
    def main(X: T.Tensor((n,), "float32"), Y: T.Tensor((2, n), "float32"),
             C: T.Tensor((4,), "int32")):
        with T.Kernel(1, threads=64) as bx:
            counts = T.alloc_shared((4,), "int32")
            rows = T.alloc_shared((2, n), "float32")
            T.fill(counts, 5)
            T.fill(counts[0], 0)
            T.clear(counts[2])
            T.copy(X, rows[0, :])
            T.copy(X, rows[1, :])
            T.fill(rows[1, 3], -1.0)
            T.clear(rows[0, n - 1])
            T.copy(rows[1, 0], rows[0, 1])
            T.copy(X[n - 1], counts[3])
            T.copy(rows, Y)
            T.copy(counts, C)

    return main
