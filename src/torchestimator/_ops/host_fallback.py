"""Ops a device cannot run as asked run on the host: TensorFlow places an op without a GPU
kernel on the CPU (soft placement), and PyTorch raises instead. CUDA has no integer matrix
products or integer max pooling ('"addmm_cuda" not implemented for 'Long''), and once
`tf.config.experimental.enable_op_determinism()` has turned on torch's deterministic algorithms,
no deterministic kernel for a float `cumsum`, a weighted `bincount` or a product scatter
('cumsum_cuda_kernel does not have a deterministic implementation'): the host's kernels for
these are sequential, so their results there are reproducible."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

_REFUSALS = (
    "not implemented for",  # no kernel for the dtype
    "does not have a deterministic implementation",  # torch's deterministic algorithms are on
)


def host_fallback(op: Callable[..., Any], *tensors: torch.Tensor) -> Any:
    """`op(*tensors)`; when the tensors' device has no kernel for their dtype, or none that is
    deterministic while torch's deterministic algorithms are on, `op` of their host copies, its
    tensors copied back to the device: the host's exact results (integers wrap on overflow as
    there), differentiable as `op` is. Any other error is raised as it is."""
    try:
        return op(*tensors)
    except RuntimeError as error:
        device = tensors[0].device
        if device.type == "cpu" or not any(refusal in str(error) for refusal in _REFUSALS):
            raise
    result = op(*(t.cpu() for t in tensors))
    if isinstance(result, torch.Tensor):
        return result.to(device)
    return type(result)(r.to(device) if isinstance(r, torch.Tensor) else r for r in result)
