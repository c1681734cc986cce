# expect: T.ws in a kernel with named barriers of its own
# line: 12
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((256,), "float32")):
    with T.Kernel(1, threads=256) as bx:
        S = T.alloc_shared((256,), "float32")
        T.sync_threads(1, 256)
        with T.ws(0):
            T.copy(A[0:128], S[0:128])
