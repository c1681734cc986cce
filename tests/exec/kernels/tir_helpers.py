"""A helper written against TVM's TIR API, as TileLang's dequantize examples write them
(tvm.tirx.const, .astype, tirx.reinterpret(dtype, value), annotations with
tirx.PrimExpr): 4-bit fields of A, put into float16 bit patterns (test_lang.py)."""
import tilelang.language as T
from tilelang import tvm as tvm
from tvm import tirx

N = 256


def nibble_to_f16(val: tirx.PrimExpr, pos: tirx.PrimExpr):
    assert val.dtype == T.uint8
    mask = tirx.const(15, T.uint16)
    f4 = (val.astype(T.uint16) >> (pos.astype(T.uint16) * tirx.const(4, T.uint16))) & mask
    bits = (f4 << tirx.const(10, T.uint16)) | tvm.tirx.const(1, "uint16")
    return tirx.reinterpret(T.float16, bits.astype(T.uint16))


@T.prim_func
def unpack(A: T.Tensor((N // 2,), T.uint8), B: T.Tensor((N,), T.float16)):
    with T.Kernel(N // 64, threads=64) as bx:
        for i in T.Parallel(64):
            j = bx * 64 + i
            B[j] = tirx.Select(j < N, nibble_to_f16(A[j // 2], j % 2), tirx.const(0, T.float16))
