"""Pointer parameters (src/frontend/tileops_ptr.c): X_ptr and Y_ptr are T.ptr scalars
(an address: a number, or a tensor whose data address it takes), made tensors with
T.make_tensor and T.make_tensor_from_addr (Y transposed through strides); a null Y_ptr
adds nothing (T.isnullptr). X and Y are parameters too, so that test_emit_cuda can give
X_ptr and Y_ptr their addresses; tests/python/test_pointers.py checks against NumPy."""
import tilelang
import tilelang.language as T


@tilelang.jit
def scale_add(M=40, N=24, bm=16, threads=64):

    @T.prim_func
    def main(X_ptr: T.ptr, Y_ptr: T.ptr(T.float32), X: T.Tensor((M, N), "float32"),
             Y: T.Tensor((M, N), "float32"), Out: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, bm), threads=threads) as bx:
            Xt = T.make_tensor(X_ptr, (M, N))
            Yt = T.make_tensor_from_addr(Y_ptr, (N, M), T.float32, strides=(1, N))
            for i, j in T.Parallel(bm, N):
                r = bx * bm + i
                if r < M:
                    Out[r, j] = Xt[r, j] * 2.0 + T.if_then_else(T.isnullptr(Y_ptr), 0.0,
                                                                Yt[j, r])

    return main
