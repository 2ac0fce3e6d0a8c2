"""TensorFlow's `.numpy()` on torch tensors: it always reads the value.

In TensorFlow nothing outside a `GradientTape` records gradients, so `.numpy()` (and
`np.asarray(t)`, which calls it) works on any tensor: the output of a `tf.Module` holding
`tf.Variable`s, `tf.reduce_mean(variable)`, a feature-column layer's output, a tensor on a GPU
(copied to the host). Here a tensor computed from variables records autograd — a plain
PyTorch loop's `loss.backward()` on a model of ours needs that — and torch's `numpy()` refuses
such a tensor, and a CUDA one.

Importing the package therefore makes `torch.Tensor.numpy` behave as `numpy(force=True)`
whenever torch would refuse: a tensor that requires grad is read detached (sharing memory, as
`t.detach().numpy()`), a tensor on another device is copied to the host. A tensor torch
accepts is handled by torch exactly as before, and autograd is untouched. This is the only
torch method the package replaces; set the environment variable
`TORCHESTIMATOR_TORCH_NUMPY=1` before importing it to keep torch's own method.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

_TORCH_NUMPY = torch.Tensor.numpy
_OPT_OUT = "TORCHESTIMATOR_TORCH_NUMPY"


def _numpy(self: torch.Tensor, *, force: bool = False) -> np.ndarray:
    """Returns the tensor as a NumPy ndarray (TensorFlow's `Tensor.numpy()`): shares memory
    with a CPU tensor, detached from autograd when it records; a copy on the host for a tensor
    on another device. `force=True` is torch's keyword and does the same."""
    if not force and (self.requires_grad or not self.is_cpu):
        force = True
    return _TORCH_NUMPY(self, force=force)


def install() -> None:
    """Replaces `torch.Tensor.numpy` with TensorFlow's reading (see the module docstring),
    unless `TORCHESTIMATOR_TORCH_NUMPY=1`; installing twice is harmless."""
    if os.environ.get(_OPT_OUT, "").strip().lower() in ("1", "true", "yes"):
        return
    torch.Tensor.numpy = _numpy  # type: ignore[method-assign]


def installed() -> bool:
    """Whether `torch.Tensor.numpy` is TensorFlow's reading."""
    current: Any = torch.Tensor.numpy
    return current is _numpy
