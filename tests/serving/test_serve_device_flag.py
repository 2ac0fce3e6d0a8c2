"""Issue 28: `torchestimator serve --device` (a real process)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch


def _serve(*flags: str, base: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchestimator", "serve", "--model_base_path", base,
                           "--rest_api_port", "1", *flags], capture_output=True, text=True, timeout=60)


def test_device_flag_is_checked_before_serving(tmp_path):
    (tmp_path / "1").mkdir()
    bad = _serve("--device", "nonsense", base=str(tmp_path))
    assert bad.returncode == 2 and "--device must be a torch device" in bad.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only refusal")
def test_cuda_device_on_a_cpu_only_machine_says_what_to_do(tmp_path):
    (tmp_path / "1").mkdir()
    out = _serve("--device", "cuda", base=str(tmp_path))
    assert out.returncode == 2 and "no CUDA device; use --device cpu" in out.stderr
