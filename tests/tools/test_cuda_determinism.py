"""`tools/cuda_determinism.py`, the pytest plugin that lists the library's calls CUDA has no
deterministic kernel for, and the ops whose CUDA sums vary from run to run: run on a small test
file, it names an unguarded float `cumsum`, counts the one through `_ops/host_fallback.py`,
leaves an integer `cumsum` alone and lists the test that called `index_add`."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from _package_env import package_only_env

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools"

_PROBE = '''
import torch
import torchestimator as tf


def test_scans():
    torch.cumsum(torch.ones(3), 0)                        # unguarded: test code
    tf.math.cumsum(torch.ones(3))                         # through the host fallback
    torch.cumsum(torch.ones(3, dtype=torch.int64), 0)     # integers: deterministic on CUDA
    torch.bincount(torch.tensor([0, 1]))                  # no weights: deterministic on CUDA


def test_sums():
    torch.zeros(3).index_add(0, torch.tensor([0, 0]), torch.ones(2))
'''


def test_the_plugin_lists_refusals_and_nondeterministic_sums(tmp_path):
    probe = tmp_path / "test_probe.py"
    probe.write_text(_PROBE)
    env = package_only_env()
    env["PYTHONPATH"] = os.pathsep.join([str(TOOLS), env["PYTHONPATH"]])
    env["CUDA_DETERMINISM_OUT"] = str(tmp_path / "out")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "cuda_determinism", "-q",
                          "-p", "no:cacheprovider", "-o", "addopts=", str(probe)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cumsum                           (test code)" in run.stdout
    assert "1 unguarded call sites; 1 more through _ops/host_fallback.py" in run.stdout
    assert "index_add                        1 tests, e.g. test_probe.py::test_sums" in run.stdout
    (written,) = (tmp_path / "out").iterdir()
    report = json.loads(written.read_text())
    assert [row[0] for row in report["raises"]] == ["cumsum", "cumsum"]
    assert report["nondeterministic"] == {"index_add": ["test_probe.py::test_sums"]}
