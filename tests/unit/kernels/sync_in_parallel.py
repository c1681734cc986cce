import tilelang
import tilelang.language as T

def bad():
    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(64):
                A[i] = 1.0
                T.sync_threads()
    return main
