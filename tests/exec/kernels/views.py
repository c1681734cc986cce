"""Views of a buffer's memory in another shape, as TileLang's convolution writes them
(T.Tensor(shape, dtype, buf.data)) and as T.reshape / T.view give them: B = 2 * A, read
through a 2-d view of the 3-d A and written through a 3-d view of the 2-d B, with tile
copies and element stores (test_lang.py)."""
import tilelang.language as T


@T.prim_func
def double(A: T.Tensor((4, 8, 16), "float32"), B: T.Tensor((32, 16), "float32")):
    with T.Kernel(2, threads=128) as bx:
        A2 = T.Tensor((32, 16), "float32", A.data)
        B3 = T.reshape(B, (4, 8, 16))
        B2 = T.view(B3, (32, 16))
        s = T.alloc_shared((16, 16), "float32")
        T.copy(A2[bx * 16, 0], s)
        for i, j in T.Parallel(16, 16):
            s[i, j] = s[i, j] * 2.0
        for i, j in T.Parallel(8, 16):
            B3[bx * 2, i, j] = s[i, j]
        T.copy(s[8:16, :], B2[bx * 16 + 8, 0])
