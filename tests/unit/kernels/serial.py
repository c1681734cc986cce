# Serial code over shared memory: thread 0 stores, everybody reads; a barrier before the
# serial loop (not in it) and one after.
import tilelang
import tilelang.language as T

def serial(dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((3, 64), dtype), B: T.Tensor((3, 64), dtype)):
        with T.Kernel(3, threads=32) as bx:
            S = T.alloc_shared((64,), dtype)
            total = T.alloc_fragment((1,), dtype)
            for i in T.Parallel(64):
                S[i] = A[bx, i]
            total[0] = 0.0
            for k in T.serial(64):
                total[0] = total[0] + S[k]
            for i in T.Parallel(64):
                B[bx, i] = S[i] - total[0]
    return main
