# expect: T.named_barrier_arrive: named barriers of the program's in a kernel with T.ws regions
# line: 15
import tilelang
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((256,), "float32")):
    with T.Kernel(1, threads=256) as bx:
        S = T.alloc_shared((256,), "float32")
        with T.ws(0):
            T.copy(A[0:128], S[0:128])
        with T.ws(1):
            T.copy(A[128:256], S[128:256])
        T.named_barrier_arrive(1, 256)
