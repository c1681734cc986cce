# T.print in serial code and in T.Parallel (compiled, not run).
import tilelang
import tilelang.language as T

def pr():
    @T.prim_func
    def main(A: T.Tensor((8,), "float16")):
        with T.Kernel(1, threads=32) as bx:
            S = T.alloc_shared((8,), "float16")
            T.copy(A, S)
            T.print(S, msg="tile")
            T.print(bx, msg="block")
            for i in T.Parallel(8):
                T.print(S[i])
    return main
