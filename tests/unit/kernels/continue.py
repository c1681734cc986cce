# continue in a serial loop: the back-edge barrier also goes before the continue.
import tilelang
import tilelang.language as T

def cont():
    @T.prim_func
    def main(A: T.Tensor((2, 64), "float32"), B: T.Tensor((2, 64), "float32")):
        with T.Kernel(2, threads=16) as bx:
            S = T.alloc_shared((64,), "float32")
            for k in T.serial(4):
                for i in T.Parallel(64):
                    S[i] = A[bx, i] + k
                if k == 1:
                    continue
                for i in T.Parallel(64):
                    B[bx, i] = B[bx, i] + S[63 - i]
    return main
