"""`tools/cuda_dtype_gaps.py`, the pytest plugin that lists the library's calls CUDA has no
kernel for: run on a small test file, it names an unguarded integer product and counts the one
that goes through `_ops/host_fallback.py`."""

from __future__ import annotations

from _plugin_run import run_plugin

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
    output, report = run_plugin("cuda_dtype_gaps", _PROBE, tmp_path, "CUDA_DTYPE_GAPS_OUT")
    assert "mm                           int64     (test code)" in output
    assert "1 unguarded call sites; 1 more through _ops/host_fallback.py" in output
    assert '"mm"' in report
