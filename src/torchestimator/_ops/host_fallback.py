"""Ops a device has no kernel for, for a dtype, run on the host: TensorFlow places an op
without a GPU kernel on the CPU (soft placement), and PyTorch raises instead (CUDA has no
integer matrix products or integer max pooling: '"addmm_cuda" not implemented for 'Long'')."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


def host_fallback(op: Callable[..., Any], *tensors: torch.Tensor) -> Any:
    """`op(*tensors)`; when the tensors' device has no kernel for their dtype, `op` of their
    host copies, its tensors copied back to the device: the host's exact results (integers
    wrap on overflow as there). Any other error is raised as it is."""
    try:
        return op(*tensors)
    except RuntimeError as error:
        device = tensors[0].device
        if device.type == "cpu" or "not implemented for" not in str(error):
            raise
    result = op(*(t.cpu() for t in tensors))
    if isinstance(result, torch.Tensor):
        return result.to(device)
    return type(result)(r.to(device) if isinstance(r, torch.Tensor) else r for r in result)
