import tilelang.language as T
def f(n=64):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), P: T.Tensor((4, n), "float32"),
             O: T.Tensor((n,), "float32")):
        with T.Kernel(4, threads=32) as s:
            for i in T.Parallel(n):
                P[s, i] = A[i] * s
        with T.Kernel(1, threads=32) as bx:
            acc = T.alloc_fragment((n,), "float32")
            T.clear(acc)
            for s in T.serial(4):
                for i in T.Parallel(n):
                    acc[i] += P[s, i]
            T.copy(acc, O)
    return main
