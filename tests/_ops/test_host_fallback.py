"""Ops a device lacks a kernel for, for a dtype, run on the host (`_ops/host_fallback.py`), as
TF places an op without a GPU kernel on the CPU: CUDA has no integer matrix products ('"addmm_cuda"
not implemented for 'Long'') and no integer max pooling. The second device (torch's lazy
backend) stands in for the GPU, its torch functions made to refuse integer operands with
CUDA's message."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import available, on_leak_device

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")


def _refusing_integers(refused: list[str], real):
    def op(*args, **kwargs):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if any(t.device.type != "cpu" and not t.is_floating_point() for t in tensors):
            refused.append(real.__name__)
            raise RuntimeError(f'"{real.__name__}_cuda" not implemented for \'Long\'')
        return real(*args, **kwargs)
    return op


def test_integer_products_run_on_the_host_exactly_and_come_back(monkeypatch):
    """tf.matmul, tf.linalg.matvec, tf.tensordot and tf.einsum: the host's exact int64 results
    (past float64's 2**53 too), on the operands' device."""
    refused: list[str] = []
    big = 2**53 + 1  # float64 cannot hold it: a product through float64 would round
    a = np.array([[big, 2], [3, -4]], dtype=np.int64)
    b = np.array([[1, 5], [1, -6]], dtype=np.int64)
    with on_leak_device() as device:
        x, y = (torch.from_numpy(v).to(device) for v in (a, b))
        for name in ("matmul", "tensordot", "einsum"):
            monkeypatch.setattr(torch, name, _refusing_integers(refused, getattr(torch, name)))
        results = {
            "matmul": (tf.matmul(x, y), a @ b),
            "matvec": (tf.linalg.matvec(x, y[0]), a @ b[0]),
            "tensordot": (tf.tensordot(x, y, axes=1), a @ b),
            "einsum": (tf.einsum("ij,jk->ik", x, y), a @ b),
        }
        monkeypatch.undo()
        for name, (got, want) in results.items():
            assert got.device.type == device.type, name
            assert got.dtype is torch.int64, name
            np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=name)
    assert set(refused) == {"matmul", "tensordot", "einsum"}


def test_integer_max_pooling_runs_on_the_host(monkeypatch):
    refused: list[str] = []
    x = np.arange(2 * 5 * 5 * 1, dtype=np.int64).reshape(2, 5, 5, 1) * (2**40)
    want = {padding: tf.nn.max_pool2d(tf.constant(x), 2, 2, padding).numpy()
            for padding in ("VALID", "SAME")}
    with on_leak_device() as device:
        on_device = torch.from_numpy(x).to(device)
        monkeypatch.setattr(torch.nn.functional, "max_pool2d",
                            _refusing_integers(refused, torch.nn.functional.max_pool2d))
        got = {padding: tf.nn.max_pool2d(on_device, 2, 2, padding) for padding in want}
        monkeypatch.undo()
    for padding, out in got.items():
        assert out.device.type == device.type
        np.testing.assert_array_equal(out.cpu().numpy(), want[padding], err_msg=padding)
    assert refused == ["max_pool2d", "max_pool2d"]


def test_other_errors_and_host_tensors_are_not_retried():
    with pytest.raises(tf.errors.InvalidArgumentError, match="einsum"):
        tf.einsum("ij,jk->ik", tf.constant(np.ones((2, 2), np.int64)),
                  tf.constant(np.ones((3, 2), np.int64)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="matmul"):
        tf.matmul(tf.constant(np.ones((2, 2), np.int64)), tf.constant(np.ones((3, 2), np.int64)))
