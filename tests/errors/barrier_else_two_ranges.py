# expect: error: the C target cannot run barriers in an else branch whose threads are two ranges \(0\.\.31 and 64\.\.127\)
# line: 13
import tilelang
import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((128,), "int32"), Y: T.Tensor((128,), "int32")):
    with T.Kernel(1, threads=128) as bx:
        tx = T.get_thread_binding()
        s = T.alloc_shared((128,), "int32")
        s[tx] = X[tx]
        if tx >= 32 and tx < 64:
            Y[tx] = s[tx]
        else:
            T.sync_threads(1, 96)
            Y[tx] = s[127 - tx]
