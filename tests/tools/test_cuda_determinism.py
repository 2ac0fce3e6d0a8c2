"""`tools/cuda_determinism.py`, the pytest plugin that lists the library's calls CUDA has no
deterministic kernel for, and the ops whose CUDA sums vary from run to run: run on a small test
file, it names an unguarded float `cumsum`, counts the one through `_ops/host_fallback.py`,
leaves an integer `cumsum` alone and lists the test that called `index_add`."""

from __future__ import annotations

import json

from _plugin_run import run_plugin

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
    output, written = run_plugin("cuda_determinism", _PROBE, tmp_path, "CUDA_DETERMINISM_OUT")
    assert "cumsum                           (test code)" in output
    assert "1 unguarded call sites; 1 more through _ops/host_fallback.py" in output
    assert "index_add                        1 tests, e.g. test_probe.py::test_sums" in output
    report = json.loads(written)
    assert [row[0] for row in report["raises"]] == ["cumsum", "cumsum"]
    assert report["nondeterministic"] == {"index_add": ["test_probe.py::test_sums"]}
