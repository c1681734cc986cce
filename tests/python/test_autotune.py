"""@tilec.autotune: parallel compiles, a failing config skipped, the best one cached on disk
and read back by a fresh tuner."""
from pysupport import pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import json

import numpy as np
import pytest

import tilec


@pytest.fixture
def tune(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    import tk_tune
    return tk_tune


def test_autotune_picks_and_caches(tune, capfd):
    configs = [{"block_M": 16, "block_N": 32}, {"block_M": 0, "block_N": 32},
               {"block_M": 64, "block_N": 64}]
    tuned = tilec.autotune(configs=configs, warmup=1, rep=5)(tune.scale)
    k = tuned(64, 64)
    res = tuned.last_result
    assert not res.from_cache and k.config in (configs[0], configs[2])
    assert k.latency > 0 and res.latency == k.latency
    err = capfd.readouterr().err
    assert "skipped config {'block_M': 0, 'block_N': 32}: compile failed:" in err
    assert "T.ceildiv: division by zero" in err
    a = np.random.default_rng(0).uniform(-1, 1, (64, 64)).astype(np.float32)
    np.testing.assert_allclose(k(a), 3 * a, rtol=1e-6)
    entry = json.load(open(res.cache_path))
    assert entry["config"] == k.config and entry["key"]["args"] == {"M": "64", "N": "64"}
    assert entry["inputs"] == [["A", "float32", [64, 64]]]
    assert tuned(64, 64) is k  # in memory

    fresh = tilec.autotune(configs=configs, warmup=1, rep=5)(tune.scale)
    k2 = fresh(64, 64)
    assert fresh.last_result.from_cache and k2.config == k.config
    assert "cached best config" in capfd.readouterr().err

    other = fresh(32, 64)  # other non-tuned arguments: another key, tuned anew
    assert not fresh.last_result.from_cache and other.params[0].shape == (32, 64)


def test_autotune_config_function_and_explicit_arguments(tune):
    tuned = tilec.autotune(configs=tune.configs, warmup=1, rep=3, verbose=False)(tune.scale)
    k = tuned(M=32, N=32)
    assert k.config in tune.configs(32, 32)
    fixed = tuned(32, 32, block_M=16, block_N=16)  # tuned arguments given: no tuning
    assert fixed.config is None and "alloc fragment float32 tile[16, 16]" in fixed.ir


def test_autotune_errors(tune):
    bad = tilec.autotune(configs=[{"block_X": 1}])(tune.scale)
    with pytest.raises(tilec.TilecError, match="names block_X, which is not a parameter"):
        bad(32, 32)
    none = tilec.autotune(configs=[{"block_M": 0, "block_N": 1}], verbose=False)(tune.scale)
    with pytest.raises(tilec.TilecError, match="no config that compiles and runs"):
        none(32, 32)


def test_autotune_rejects_wrong_results(tune):
    configs = [{"block_M": 16, "block_N": 16}, {"block_M": 32, "block_N": 32}]
    tuned = tilec.autotune(configs=configs, warmup=1, rep=3, ref_prog=lambda a: 2 * a,
                           verbose=False)(tune.scale)
    with pytest.raises(tilec.TilecError, match="wrong result"):
        tuned(32, 32)
    ok = tilec.autotune(configs=configs, warmup=1, rep=3, ref_prog=lambda a: 3 * a,
                        verbose=False)(tune.scale)
    assert ok(32, 32).config in configs
