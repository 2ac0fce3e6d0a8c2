"""TF's `.numpy()` on torch tensors: it reads tensors that record autograd (and, on a GPU
machine, CUDA tensors); autograd and torch's own results are unchanged; the opt-out restores
torch's method."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import torchestimator as tf


class _Linear(tf.Module):
    """The basic-training-loops guide's model: y = w * x + b with tf.Variables."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


def test_the_guides_module_output_and_a_reduction_of_a_variable_read_as_numpy():
    model = _Linear()
    out = model(3.0)
    assert out.requires_grad  # it records: a plain PyTorch loop can call backward on it
    assert out.numpy() == 15.0
    assert tf.reduce_mean(tf.Variable([1.0, 2.0])).numpy() == 1.5
    np.testing.assert_array_equal(np.asarray(model(tf.constant([1.0, 2.0]))), [5.0, 10.0])


def test_reading_shares_memory_and_leaves_autograd_alone():
    w = torch.ones(3, requires_grad=True)
    y = w * 2
    array = y.numpy()
    np.testing.assert_array_equal(array, [2.0, 2.0, 2.0])
    with torch.no_grad():
        y.add_(1)
    assert array[0] == 3.0  # a view of the tensor's memory, as t.detach().numpy()
    (w * w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])


def test_a_tensor_torch_accepts_is_torchs_answer():
    t = torch.arange(4)
    array = t.numpy()
    t[0] = 7
    assert array[0] == 7 and array.dtype == np.int64
    assert t.numpy(force=True).tolist() == [7, 1, 2, 3]


def test_the_opt_out_keeps_torchs_method():
    program = ("import torch, torchestimator\n"
               "try:\n    torch.ones(1, requires_grad=True).numpy()\n"
               "except RuntimeError as e:\n    print('refused', 'requires grad' in str(e))\n")
    env = {**os.environ, "TORCHESTIMATOR_TORCH_NUMPY": "1"}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.stdout.strip() == "refused True", result.stderr[-2000:]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_a_cuda_tensor_is_copied_to_the_host():
    t = torch.arange(3.0, device="cuda", requires_grad=True) * 2
    np.testing.assert_array_equal(t.numpy(), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(t), [0.0, 2.0, 4.0])
