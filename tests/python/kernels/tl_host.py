"""An eager kernel that calls host helpers, as TileLang's convolution example calls
check_hopper() (torch.cuda): helpers of no arguments that read a module libtilec cannot
evaluate run once in Python (test_capture.py)."""
import os
import sys

import tilelang
import tilelang.language as T


def little_endian():
    return sys.byteorder == "little"


def scale_from_env():
    return float(os.environ.get("TL_HOST_SCALE", "2.0"))


def scaled(factor):  # has a parameter: evaluated at the kernel's meta level, as before
    return factor * float(os.environ.get("TL_HOST_SCALE", "2.0"))


@tilelang.jit
def host_scaled(A, block=16):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), T.float32)
    B = T.empty((M, N), T.float32)
    s = scale_from_env() if little_endian() else 0.0
    with T.Kernel(T.ceildiv(M, block)) as bx:
        for i, j in T.Parallel(block, N):
            B[bx * block + i, j] = A[bx * block + i, j] * s
    return B


@tilelang.jit
def host_with_args(A):
    M = T.const("M")
    A: T.Tensor((M,), T.float32)
    B = T.empty((M,), T.float32)
    s = scaled(1.0)
    with T.Kernel(1) as bx:
        for i in T.Parallel(M):
            B[i] = A[i] * s
    return B
