"""bench/'s pieces that run without a GPU: the results CSV keeps its history, and
variants.py's --variant and --shapes parse (and refuse what they cannot parse)."""
from pysupport import ROOT, pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import argparse
import csv
import math
import os
import subprocess
import sys

import pytest

sys.path.insert(0, str(ROOT / "bench"))
_as_tilelang = os.environ.get("TILEC_AS_TILELANG")
import bench  # noqa: E402 (sets TILEC_AS_TILELANG for the examples it runs)
import variants  # noqa: E402

if _as_tilelang is None:  # the other tests' import hook sees the environment it had
    os.environ.pop("TILEC_AS_TILELANG", None)


def test_csv_appends_with_one_header(tmp_path):
    path = tmp_path / "results.csv"
    bench.append_csv(str(path), "2026-12-04", "GPU", [("w1", "peer", 2.0, 4.0, "TFLOP/s", 0.1)])
    bench.append_csv(str(path), "2026-12-05", "GPU", [("w2", "peer", 3.0, 0.0, "TFLOP/s", 0.2)])
    rows = list(csv.reader(path.open()))
    assert rows[0] == bench.CSV_HEADER
    assert [r[2] for r in rows[1:]] == ["w1", "w2"]  # the first run's row survives the second
    assert rows[1][7] == "0.5000" and rows[2][7] == "0.0000"  # ratio; 0 without a peer
    assert b"\r" not in path.read_bytes()


def test_variant_splits_settings_from_arguments():
    assert variants.variant("default") == ("default", {}, {})
    assert variants.variant("w:TILEC_CLUSTER=1,block_M=256,shared_epilogue=False,x=a") == (
        "w", {"cluster": "1"}, {"block_M": 256, "shared_epilogue": False, "x": "a"})
    assert variants.variant("w:no_ws=1,no_splitk=1") == ("w", {"no_ws": "1", "no_splitk": "1"},
                                                          {})
    assert variants.shapes("4096x1024x8192,128x7168x4096") == [(4096, 1024, 8192),
                                                              (128, 7168, 4096)]


@pytest.mark.parametrize("text", ["w:block_M", ":block_M=1", "w:=3", "w:TILEC_NO_SUCH=1"])
def test_variant_refuses_malformed(text):
    with pytest.raises(argparse.ArgumentTypeError):
        variants.variant(text)


def test_shapes_refuses_malformed():
    with pytest.raises(argparse.ArgumentTypeError):
        variants.shapes("4096x4096xK")


def test_environ_sets_and_restores(monkeypatch):
    monkeypatch.setenv("TILEC_TEST_KEPT", "old")
    monkeypatch.delenv("TILEC_TEST_NEW", raising=False)
    with pytest.raises(RuntimeError):
        with bench.environ(TILEC_TEST_KEPT="1", TILEC_TEST_NEW="2"):
            assert os.environ["TILEC_TEST_KEPT"] == "1" and os.environ["TILEC_TEST_NEW"] == "2"
            raise RuntimeError  # restored on the way out of a failing block too
    assert os.environ["TILEC_TEST_KEPT"] == "old" and "TILEC_TEST_NEW" not in os.environ


def test_geomean_row_skips_what_did_not_run():
    done = [("a", "p", 2.0, 8.0, "TFLOP/s", 0.1), ("b", "p", 8.0, 2.0, "TFLOP/s", float("nan")),
            ("c", "p", 0.0, 5.0, "TFLOP/s", 0.9)]  # tilec failed on c
    work, peer, tl, other, unit, err = bench.geomean_row("g", "p", done)
    assert (work, peer, unit) == ("g", "p (2 of 3 shapes)", "TFLOP/s")
    assert tl == pytest.approx(4.0) and other == pytest.approx(4.0)
    assert math.isnan(err)  # an unknown error makes the largest unknown
    assert bench.geomean_row("g", "p", done[:1])[5] == 0.1
    assert bench.geomean_row("g", "p", done[2:])[1:4] == ("p (0 of 1 shapes)", 0.0, 0.0)


@pytest.mark.parametrize("name, factory, args, size, step", bench.COMPILE_KERNELS)
def test_compile_kernels_take_their_arguments(name, factory, args, size, step):
    """The compile group's factories and arguments (checked on the C target: what the GPU
    run would fail on late), with its size parameter moved by a tile."""
    from tilec.jit import compile_file
    defines = {k: repr(v) for k, v in args.items()}
    defines[size] = repr(args[size] + step)
    k = compile_file(str(ROOT / "examples" / (name + ".py")), factory, defines, target="c")
    assert k.name == factory


def test_variant_settings_are_the_compilers():
    """variants.SETTINGS names the lowering settings of `tilec help settings` (options.c)."""
    tilec_bin = os.environ.get("TILEC", str(ROOT / "build" / "tilec"))
    out = subprocess.run([tilec_bin, "help", "settings"], capture_output=True, text=True,
                         check=True).stdout
    table = {w[0]: w[1] for w in (ln.split() for ln in out.splitlines() if ln.startswith("  "))}
    for key, var in variants.SETTINGS.items():
        assert table.get(key) == var, key
