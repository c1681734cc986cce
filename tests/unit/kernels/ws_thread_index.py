# Per-thread code in a T.ws region: T.get_thread_binding() is the block's thread index, and
# only the region's threads (128..255 here) run the region's per-thread statements; a
# per-thread variable that every thread of the region sets to the same value is read by
# code that runs once (the C target: the region's first thread's copy).
import tilelang
import tilelang.language as T


def ws_thread_index(N=256):
    @T.prim_func
    def main(A: T.Tensor((2, N), "float32"), B: T.Tensor((2, N), "float32")):
        with T.Kernel(2, threads=256) as bx:
            S = T.alloc_shared((1,), "float32")
            with T.ws(1):
                tx = T.get_thread_binding()
                v = T.alloc_var("float32")
                v = A[bx, 0] + 1.0
                S[0] = v
                B[bx, tx] = A[bx, tx] * 2 + tx + S[0]

    return main
