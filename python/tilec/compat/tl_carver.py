"""tilelang.carver without TVM: the GPU's facts and a GEMM tile recommender.

TileLang's carver analyses a TVM PrimFunc and ranks tile shapes with its "roller". The
examples use three corners of it, which tilec answers from the GPU that libtilec sees
(tl_info_json), not from TVM:
* `carver.arch.driver.get_num_sms()` and its siblings: the device's properties;
* `carver.arch.CUDA(target)`: a device model (sm_version, compute_max_core, smem_cap...);
* `carver.template.MatmulTemplate(M, N, K, ...).with_arch(arch).recommend_hints(topk)`:
  GEMM tiles ranked by a small cost model (whole waves of tiles over the SMs, operand
  traffic per FLOP, shared memory that fits the pipeline), as `Hint`s with TileLang's
  fields (block, warp, rstep, pipeline_stage, rasterization_plan).
The hints are starting points for the autotuner, as in TileLang; they are not tilec's own
choices (T.gemm picks its instruction and layouts itself)."""
import math

from .._lib import TilecError
from .._tensor import DL_CODES, dtype_name


def _gpus():
    from .. import info_json
    return info_json().get("cuda", {}).get("gpus") or []


def _gpu(device_id=0):
    gpus = _gpus()
    if not 0 <= device_id < len(gpus):
        raise TilecError("tilelang.carver: no CUDA GPU %d visible to libtilec (%d found; "
                         "`tilec info` says why)" % (device_id, len(gpus)))
    return gpus[device_id]


# ---- tilelang.carver.arch.driver ----------------------------------------------------------
def get_num_sms(device_id=0):
    return int(_gpu(device_id)["sms"])


def get_device_name(device_id=0):
    return _gpu(device_id)["name"]


def _capability(device_id=0):
    major, minor = _gpu(device_id)["compute_capability"].split(".")
    return int(major), int(minor)


def get_shared_memory_per_block(device_id=0, format="bytes"):
    """The opt-in maximum a block may use (what TileLang's carver plans with)."""
    major, _ = _capability(device_id)
    size = {7: 96, 8: 163, 9: 227, 10: 227, 12: 99}.get(major, 48) * 1024
    return {"bytes": size, "kb": size // 1024, "mb": size / (1 << 20)}[format]


get_max_dynamic_shared_size_bytes = get_shared_memory_per_block


def get_registers_per_block(device_id=0):
    return 65536


DRIVER = dict(get_num_sms=get_num_sms, get_device_name=get_device_name,
              get_shared_memory_per_block=get_shared_memory_per_block,
              get_max_dynamic_shared_size_bytes=get_max_dynamic_shared_size_bytes,
              get_registers_per_block=get_registers_per_block)


# ---- tilelang.carver.arch -----------------------------------------------------------------
class CUDA:
    """The device model of TileLang's carver for the current GPU."""
    platform = "CUDA"
    warp_size = 32
    reg_cap = 65536
    sm_partition = 4
    transaction_size = [32, 128]
    bandwidth = [750, 12080]

    def __init__(self, target="cuda", device_id=0):
        self.target = target
        major, minor = _capability(device_id)
        self.sm_version = major * 10 + minor
        self.compute_capability = "%d%d" % (major, minor)
        self.name = get_device_name(device_id)
        self.compute_max_core = get_num_sms(device_id)
        self.smem_cap = get_shared_memory_per_block(device_id)
        self.max_smem_usage = 2 * self.smem_cap

    def __repr__(self):
        return "CUDA(%s)" % self.target


class CDNA:
    """AMD's device model: tilec has no AMD target."""

    def __init__(self, target="hip"):
        raise TilecError("tilelang.carver.arch.CDNA(%r): tilec has CUDA and C targets, "
                         "no ROCm" % (target,))


def get_arch(target="cuda"):
    if str(target).split()[0] not in ("cuda", "auto"):
        raise TilecError("tilelang.carver.get_arch(%r): tilec models CUDA GPUs only" % target)
    return CUDA(target)


def auto_infer_current_arch():
    return CUDA("cuda")


def is_hopper_arch(arch):
    return isinstance(arch, CUDA) and arch.sm_version == 90


def is_ampere_arch(arch):
    return isinstance(arch, CUDA) and 80 <= arch.sm_version < 90


class Rasterization:
    panel_width_ = None


class NoRasterization(Rasterization):
    def __repr__(self):
        return "<NoRasterization>"


class Rasterization2DRow(Rasterization):
    def __init__(self, panel_width=4):
        self.panel_width_ = panel_width


class Rasterization2DColumn(Rasterization2DRow):
    pass


class Hint:
    """One recommended tiling (TileLang's roller Hint, with the fields GEMMs use)."""

    def __init__(self, block, warp, rstep, pipeline_stage, rasterization_plan):
        self.block, self.warp, self.rstep = list(block), list(warp), list(rstep)
        self.pipeline_stage = pipeline_stage
        self.rasterization_plan = rasterization_plan
        self.use_tc = True
        self.split_k_factor = 1

    def to_dict(self):
        return dict(block=self.block, warp=self.warp, rstep=self.rstep, use_tc=True,
                    pipeline_stage=self.pipeline_stage)

    def __repr__(self):
        return str(self.to_dict())


# ---- tilelang.carver.template -------------------------------------------------------------
class MatmulTemplate:
    """C[M, N] = A[M, K] @ B[K, N] (B transposed when trans_B), ranked tile shapes."""

    def __init__(self, M=None, N=None, K=None, in_dtype="float16", out_dtype="float16",
                 accum_dtype="float32", with_bias=False, trans_A=False, trans_B=True):
        if not all(isinstance(v, int) and v > 0 for v in (M, N, K)):
            raise TilecError("MatmulTemplate needs positive int M, N, K, got %r"
                             % ((M, N, K),))
        self.M, self.N, self.K = M, N, K
        self.in_dtype, self.out_dtype = _dtype(in_dtype), _dtype(out_dtype)
        self.accum_dtype = _dtype(accum_dtype)
        self.arch = None

    def with_arch(self, arch):
        self.arch = arch
        return self

    def equivalent_function(self):
        """TileLang returns the TVM PrimFunc; here the problem itself (not None)."""
        return dict(M=self.M, N=self.N, K=self.K, in_dtype=self.in_dtype,
                    out_dtype=self.out_dtype, accum_dtype=self.accum_dtype)

    def recommend_hints(self, topk=10):
        arch = self.arch or CUDA("cuda")
        cands = list(_candidates(self, arch))
        cands.sort(key=lambda c: c[0])
        return [hint for _, hint in cands[:topk]]


def _dtype(d):
    name = dtype_name(str(d))
    if name is None:
        raise TilecError("MatmulTemplate: %r is not a dtype tilec knows" % (d,))
    return name


def _candidates(t, arch):
    """(estimated cost, Hint) for each tile that fits the device."""
    in_bytes = DL_CODES[t.in_dtype][1] // 8
    for bm in (64, 128, 256):
        for bn in (64, 128, 256):
            for bk in (32, 64):
                for stages in (2, 3, 4):
                    smem = stages * (bm + bn) * bk * in_bytes
                    if smem > arch.smem_cap or bm * bn > 128 * 256:
                        continue
                    # 2x2 warps (128 threads); 2x4 (256) for the largest tiles
                    warp = (bm // 2, bn // 4) if bm * bn >= 128 * 256 else (bm // 2, bn // 2)
                    cost = _cost(t, arch, bm, bn, bk, stages)
                    yield cost, Hint((bm, bn), warp, (bk,), stages, NoRasterization())


def _cost(t, arch, bm, bn, bk, stages):
    """Relative time: waves of tiles (the last one counted whole) times a tile's time,
    which grows with its FLOPs and shrinks with its reuse of loaded operands."""
    tiles = math.ceil(t.M / bm) * math.ceil(t.N / bn)
    waves = math.ceil(tiles / arch.compute_max_core)
    padded = bm * bn * math.ceil(t.K / bk) * bk  # FLOPs of one tile, padding included
    reuse = (bm * bn) / (bm + bn)                 # FLOPs per operand element loaded
    latency_hidden = min(stages, 3) / 3
    return waves * padded / (reuse ** 0.5) / (0.5 + 0.5 * latency_hidden)
