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


def _torch_determinism_refusal() -> str:
    """The text torch gives an op without a deterministic kernel, after the op's name (taken from
    a real refusal: `put_` has none on the CPU either)."""
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        torch.zeros(2).put_(torch.tensor([0]), torch.tensor([1.0]))
    except RuntimeError as error:
        return str(error).split("put_", 1)[1]
    finally:
        torch.use_deterministic_algorithms(before)
    raise AssertionError("put_ ran under torch's deterministic algorithms")


def _refusing_on_the_device(refused: list[str], real, name: str, message: str):
    def op(*args, **kwargs):
        if any(isinstance(a, torch.Tensor) and a.device.type != "cpu" for a in args):
            refused.append(name)
            raise RuntimeError(f"{name}_cuda_kernel{message}")
        return real(*args, **kwargs)
    return op


def test_ops_without_a_deterministic_device_kernel_run_on_the_host(monkeypatch):
    """After `enable_op_determinism()` CUDA refuses a float `cumsum`, a weighted `bincount` and
    a product scatter ('cumsum_cuda_kernel does not have a deterministic implementation'). The
    library's own uses (AUC's threshold counts, TF1's mean IoU, tf.math.cumsum, the segment
    products, the Kaiser-Bessel derived window) run those on the host and give the CPU's values
    on the device; the second device refuses them with torch's own words."""
    message = _torch_determinism_refusal()
    labels = np.array([0, 1, 1, 0, 1, 0, 1, 1], np.float32)
    scores = np.array([0.1, 0.8, 0.35, 0.4, 0.9, 0.65, 0.2, 0.7], np.float32)
    classes = np.array([0, 1, 2, 2, 1, 0, 2, 1]), np.array([0, 2, 2, 1, 1, 0, 2, 0])

    def values(device):
        put = (lambda a: torch.as_tensor(a).to(device)) if device else torch.as_tensor
        auc = tf.keras.metrics.AUC(num_thresholds=50)
        auc.update_state(put(labels), put(scores))
        iou, update = tf.compat.v1.metrics.mean_iou(put(classes[0]), put(classes[1]), 3)
        got = {"auc": auc.result(), "iou": update,
               "cumsum": tf.math.cumsum(put(scores), reverse=True),
               "segment_prod": tf.math.unsorted_segment_prod(put(scores), put(classes[0]), 3),
               "window": tf.signal.kaiser_bessel_derived_window(8)}
        return {k: (v.device.type, v.detach().cpu().numpy()) for k, v in got.items()}

    want = values(None)
    refused: list[str] = []
    with on_leak_device() as device:
        monkeypatch.setattr(torch, "cumsum", _refusing_on_the_device(refused, torch.cumsum, "cumsum", message))
        monkeypatch.setattr(torch.Tensor, "cumsum",
                            _refusing_on_the_device(refused, torch.Tensor.cumsum, "cumsum", message))
        monkeypatch.setattr(torch, "bincount",
                            _refusing_on_the_device(refused, torch.bincount, "bincount", message))
        monkeypatch.setattr(torch.Tensor, "scatter_reduce", _refusing_on_the_device(
            refused, torch.Tensor.scatter_reduce, "scatter_reduce", message))
        got = values(device)
        monkeypatch.undo()
    for name, (where, value) in got.items():
        assert where == device.type, name
        np.testing.assert_allclose(value, want[name][1], rtol=1e-6, err_msg=name)
    assert {"cumsum", "bincount", "scatter_reduce"} <= set(refused)
