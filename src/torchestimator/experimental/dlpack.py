"""`tf.experimental.dlpack`: `to_dlpack(tf_tensor)` and `from_dlpack(dlcapsule)` over
`torch.utils.dlpack`, sharing memory with the other framework as TF's."""

from __future__ import annotations

from typing import Any

import torch
import torch.utils.dlpack as _dlpack

from torchestimator._ops.convert import convert_to_tensor


def to_dlpack(tf_tensor: Any) -> Any:
    """Returns a DLPack capsule of `tf_tensor` (TF's `tf.experimental.dlpack.to_dlpack`), which
    another framework (numpy's `from_dlpack`, JAX, CuPy, ...) reads without a copy."""
    tensor = convert_to_tensor(tf_tensor)
    if not isinstance(tensor, torch.Tensor):
        raise TypeError("tf.experimental.dlpack.to_dlpack: string tensors have no DLPack form; "
                        f"got {type(tf_tensor).__name__}.")
    return _dlpack.to_dlpack(tensor.detach())


def from_dlpack(dlcapsule: Any) -> torch.Tensor:
    """Returns the tensor a DLPack capsule (or an object with `__dlpack__`) holds, sharing its
    memory (TF's `tf.experimental.dlpack.from_dlpack`)."""
    return _dlpack.from_dlpack(dlcapsule)


__all__ = ["from_dlpack", "to_dlpack"]
