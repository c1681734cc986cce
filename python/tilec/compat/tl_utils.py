"""tilelang.utils.tensor, tilelang.utils.target (TileLang <= 0.1.11) and
tilelang.language.fp8 under the compatibility layer."""
from ..profiler import TensorSupplyType, _draw, _supply
from .._lib import TilecError


def get_tensor_supply(supply_type=TensorSupplyType.Integer):
    """A function param -> a new tensor for that kernel parameter (a tilec.Param: shape
    and dtype), filled as supply_type says (tilec's rules, tilec.TensorSupplyType). A
    torch tensor (on the current CUDA device when torch has CUDA) when torch is
    installed, else a numpy array. Symbolic sizes are an error, as in TileLang."""
    import numpy as np
    kind = _supply(supply_type)
    rng = np.random.default_rng()

    def get_tensor(param):
        shape = tuple(param.shape)
        if any(not isinstance(d, int) for d in shape):
            raise ValueError("parameter '%s' has the symbolic shape %s: a tensor supply needs "
                             "a static shape" % (param.name, shape))
        vals = _draw(rng, kind, shape, param.dtype)
        try:
            import torch
        except ImportError:
            from .._tensor import numpy_dtype
            return np.ascontiguousarray(vals.astype(numpy_dtype(param.dtype)))
        src = torch.from_numpy(vals.astype(np.float32 if vals.dtype.kind == "f" else np.int64))
        dev = "cuda" if torch.cuda.is_available() else "cpu"
        return src.to(device=dev, dtype=param.torch_dtype)
    return get_tensor


def determine_fp8_type(fp8_format="e4m3"):
    """The fp8 dtype name for NVIDIA GPUs: "float8_e4m3fn" or "float8_e5m2"."""
    if fp8_format not in ("e4m3", "e5m2"):
        raise ValueError("Unsupported FP8 format: %s" % fp8_format)
    from .language import DType
    return DType("float8_e4m3fn" if fp8_format == "e4m3" else "float8_e5m2")


def determine_torch_fp8_type(fp8_format="e4m3"):
    import torch
    return getattr(torch, str(determine_fp8_type(fp8_format)))


def _cuda_usable():
    from .. import info_json
    return info_json()["auto_target"] == "cuda"


def check_cuda_availability():
    """True when tilec can run CUDA kernels here (a GPU, its driver and NVRTC)."""
    return _cuda_usable()


def check_hip_availability():
    return False  # tilec has no ROCm target


def check_metal_availability():
    return False  # nor a Metal one


def determine_target(target="auto", return_object=False):
    """tilec's target for TileLang's spelling: "cuda" or "c" for "auto" (as tilec picks),
    else the target named ("cuda ...", "llvm"/"c"). return_object=True has no TVM Target
    to return: TilecError."""
    if return_object:
        raise TilecError("determine_target(return_object=True): tilec has no TVM Target "
                         "objects; targets are the strings 'c' and 'cuda'")
    from ..jit import normalize_target
    t = normalize_target(target)
    return ("cuda" if _cuda_usable() else "c") if t == "auto" else t


def target_is_cuda(target):
    from ..jit import normalize_target
    return normalize_target(target) == "cuda"


def target_is_hip(target):
    return False
