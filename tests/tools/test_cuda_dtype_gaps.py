"""`tools/cuda_dtype_gaps.py`, the pytest plugin that lists the library's calls CUDA has no
kernel for: run on a small test file, it names an unguarded integer product and counts the one
that goes through `_ops/host_fallback.py`."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from _package_env import package_only_env

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools"

_PROBE = '''
import torch
import torchestimator as tf


def test_products():
    ints = torch.ones(2, 2, dtype=torch.int64)
    torch.matmul(ints, ints)                         # unguarded: test code
    tf.matmul(ints, ints)                            # through the host fallback
    tf.matmul(torch.ones(2, 2), torch.ones(2, 2))    # float: no gap
'''


def test_the_plugin_lists_unguarded_calls_and_counts_guarded_ones(tmp_path):
    probe = tmp_path / "test_probe.py"
    probe.write_text(_PROBE)
    env = package_only_env()
    env["PYTHONPATH"] = os.pathsep.join([str(TOOLS), env["PYTHONPATH"]])
    env["CUDA_DTYPE_GAPS_OUT"] = str(tmp_path / "out")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "cuda_dtype_gaps", "-q",
                          "-p", "no:cacheprovider", "-o", "addopts=", str(probe)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mm                           int64     (test code)" in run.stdout
    assert "1 unguarded call sites; 1 more through _ops/host_fallback.py" in run.stdout
    (written,) = (tmp_path / "out").iterdir()
    assert '"mm"' in written.read_text()
