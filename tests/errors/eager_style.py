# expect: error: 'add' looks like an eager-style kernel
# line: 8
import tilelang
import tilelang.language as T


@tilelang.jit
def add(A: T.Tensor, B: T.Tensor):
    M, N = T.const("M, N")
    return A
