"""2:4 structured sparsity for T.gemm_sp under the compatibility layer:
tilelang.cuda.intrinsics.sparse_layout (GROUP_CONFIG, get_e_factor,
get_e_replicate_factor), tilelang.utils.sparse (compress, randn_semi_sparse,
randint_semi_sparse, arange_semi_sparse) and tilelang.language.dtypes (dtype,
_TORCH_DTYPE_TO_STR), as TileLang 0.1.15 and its examples/gemm_sp use them.

The metadata is TileLang 0.1.15's natural row-major layout, the one tilec's T.gemm_sp
reads on every target (docs/language.md, T.gemm_sp): E[m, g // q] holds, in its 4-bit
field g % q (lowest bits first; q = E's bits / 4), where the kept values of group g of
row m were: bits 1:0 the index of the first in its group of 4, bits 3:2 that of the
second (float32: groups of 2, one kept, field 0b0100 or 0b1110). compress runs on numpy
arrays and on torch tensors on any device (the result stays there)."""
import numpy as np

from .language import DType, dtype

GROUP_CONFIG = {DType(n): cfg for n, cfg in (
    ("float32", (1, 2)), ("float16", (2, 4)), ("bfloat16", (2, 4)), ("int8", (2, 4)),
    ("uint8", (2, 4)), ("float8_e4m3", (2, 4)), ("float8_e5m2", (2, 4)))}
GROUP_CONFIG[DType("float8_e4m3fn")] = (2, 4)
_BITS_PER_GROUP = 4


def get_e_factor(a_dtype, meta_dtype):
    """How many a_dtype elements (of the dense K) one meta_dtype element describes."""
    _, group = GROUP_CONFIG[dtype(a_dtype)]
    return (dtype(meta_dtype).bits // _BITS_PER_GROUP) * group


def get_e_replicate_factor(a_dtype):
    """TileLang's count of consecutive threads holding one metadata value (1 for 8-bit
    operands, else 2); tilec's kernels read E themselves, this is for scripts."""
    return 1 if dtype(a_dtype).bits <= 8 else 2


class _TorchDtypeNames(dict):
    """tilelang.language.dtypes._TORCH_DTYPE_TO_STR: torch dtype -> dtype name."""

    def __missing__(self, key):
        from .._tensor import dtype_name
        name = dtype_name(key)
        if name is None:
            raise KeyError(key)
        return name


_TORCH_DTYPE_TO_STR = _TorchDtypeNames()


def _is_torch(x):
    return type(x).__module__.startswith("torch")


def _name(x):
    from .._tensor import dtype_name
    return dtype_name(x.dtype)


def _kept_indices(nonzero, elem):
    """The in-group indices (rows, groups, elem) of the kept values and the 4-bit field of
    each group, from the nonzero mask (rows, groups, group): TileLang's compressor's
    choice (ordered; fewer nonzeros than kept: index 0, then 1 or the nonzero's)."""
    count = nonzero.sum(-1)
    if (count > elem).any():
        r, g = np.argwhere(count > elem)[0]
        raise ValueError("compress: group %d of row %d has %d nonzeros, more than %d of %d"
                         % (g, r, count[r, g], elem, nonzero.shape[-1]))
    pos = np.argsort(~nonzero, axis=-1, kind="stable")  # nonzero positions first, in order
    if elem == 1:  # float32: 1 of 2
        idx = np.where(count == 1, pos[..., 0], 0)[..., None]
        return idx, np.where(idx[..., 0] == 0, 0b0100, 0b1110)
    first, second = pos[..., 0], pos[..., 1]
    i0 = np.where(count == 2, first, 0)
    i1 = np.where(count == 2, second, np.where(count == 1, np.maximum(first, 1), 1))
    return np.stack([i0, i1], -1), i0 | (i1 << 2)


def _pack(fields, meta_name):
    """(rows, groups) 4-bit fields -> (rows, groups // q) integers of meta_name, field g
    % q of element g // q at bits 4 (g % q)."""
    bits = DType(meta_name).bits
    q = bits // _BITS_PER_GROUP
    rows, groups = fields.shape
    f = fields.astype(np.uint64).reshape(rows, groups // q, q)
    packed = (f << (np.arange(q, dtype=np.uint64) * 4)).sum(-1, dtype=np.uint64)
    return packed.astype("uint%d" % bits).view(meta_name)


def compress(A, meta_dtype=None, block_m=None, block_k=None):
    """(A_sparse, E) of a 2-D 2:4 sparse A (1:2 for float32) along its last dimension:
    A_sparse (M, K/2) the kept values in order, E (M, K / e_factor) the metadata.
    meta_dtype: an 8-, 16- or 32-bit integer dtype (default int32 for int8, else int16).
    block_m / block_k are TileLang's kernel tiling, accepted and not needed here."""
    if len(A.shape) != 2:
        raise ValueError("compress: A must be 2-D, got shape %s" % (tuple(A.shape),))
    name = _name(A)
    if name not in GROUP_CONFIG:
        raise ValueError("compress: no 2:4 sparsity for %s" % name)
    from .._tensor import dtype_name
    meta = dtype_name(meta_dtype) if meta_dtype is not None else (
        "int32" if name == "int8" else "int16")
    if meta not in ("int8", "int16", "int32", "uint8", "uint16", "uint32"):
        raise ValueError("compress: meta_dtype must be an 8-, 16- or 32-bit integer, not %s"
                         % meta_dtype)
    elem, group = GROUP_CONFIG[DType(name)]
    M, K = A.shape
    if K % get_e_factor(name, meta):
        raise ValueError("compress: K = %d is not a multiple of %d (%s metadata for %s)"
                         % (K, get_e_factor(name, meta), meta, name))
    if _is_torch(A):
        return _compress_torch(A, name, meta, elem, group)
    mask = (np.asarray(A).astype(np.float32) != 0).reshape(M, K // group, group)
    idx, fields = _kept_indices(mask, elem)
    vals = np.take_along_axis(np.asarray(A).reshape(M, K // group, group), idx, -1)
    return np.ascontiguousarray(vals.reshape(M, K // 2)), _pack(fields, meta)


def _compress_torch(A, name, meta, elem, group):
    import torch
    from .._tensor import torch_dtype
    M, K = A.shape
    mask = (A.float() != 0).reshape(M, K // group, group).cpu().numpy()
    idx, fields = _kept_indices(mask, elem)
    raw = A.view(torch.int8) if name.startswith("float8") else A  # fp8 has no gather
    vals = torch.gather(raw.reshape(M, K // group, group), -1,
                        torch.from_numpy(idx.astype(np.int64)).to(A.device))
    vals = vals.reshape(M, K // 2).view(A.dtype).contiguous()
    signed = meta.replace("uint", "int")  # numpy -> torch through the signed type
    E = torch.from_numpy(_pack(fields, meta).view(signed)).to(A.device)
    return vals, E if signed == meta else E.view(torch_dtype(meta))


def _semi_sparse(tensor, M, K, dtype, transposed):
    """tensor (M, K) with the largest elem of each group set to 0, as TileLang does."""
    elem, group = GROUP_CONFIG[DType(_TORCH_DTYPE_TO_STR[dtype])]
    tensor = tensor.view(M, -1, group)
    tensor.scatter_(-1, tensor.topk(elem, dim=-1).indices, 0)
    tensor = tensor.view(M, K)
    return tensor.t().contiguous() if transposed else tensor


def randn_semi_sparse(M, K, dtype=None, device="cuda", transposed=False):
    """A random (M, K) torch tensor with 2:4 sparsity along K (1:2 for float32);
    (K, M) when transposed."""
    import torch
    dtype = dtype or torch.float16
    t = torch.randn((M, K), dtype=torch.float, device=device)
    return _semi_sparse(t, M, K, dtype, transposed).to(dtype)


def randint_semi_sparse(M, K, low, high, dtype=None, device="cuda", transposed=False):
    """randn_semi_sparse with integers in [low, high)."""
    import torch
    dtype = dtype or torch.int32
    t = torch.randint(low, high, (M, K), dtype=dtype, device=device)
    return _semi_sparse(t, M, K, dtype, transposed)


def arange_semi_sparse(M, K, dtype=None, device="cuda", transposed=False):
    """randn_semi_sparse with the values 0 .. M*K-1."""
    import torch
    dtype = dtype or torch.float16
    t = torch.arange(M * K, dtype=dtype, device=device)
    return _semi_sparse(t, M, K, dtype, transposed)
