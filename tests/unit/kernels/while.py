# A while loop on a shared value, with break.
import tilelang
import tilelang.language as T

def scan():
    @T.prim_func
    def main(A: T.Tensor((4, 64), "float32"), C: T.Tensor((4,), "int32")):
        with T.Kernel(4, threads=32) as bx:
            S = T.alloc_shared((64,), "float32")
            n = T.alloc_fragment((1,), "int32")
            for i in T.Parallel(64):
                S[i] = A[bx, i]
            n[0] = 0
            while n[0] < 64:
                if S[n[0]] > 1.5:
                    break
                n[0] = n[0] + 1
            C[bx] = n[0]
    return main
