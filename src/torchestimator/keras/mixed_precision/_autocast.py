"""The step's mixed-precision context on an accelerator: `torch.autocast` under a mixed policy.

On CUDA a mixed policy ('mixed_float16', 'mixed_bfloat16') can run the training step under
`torch.autocast(device_type='cuda', dtype=compute dtype)`: each matmul and convolution casts its
inputs itself, with the float32 weights' casts cached for the step, instead of every layer
casting its inputs and weights (the CPU's path, which keeps it: CPU autocast is slower here).
Layers of a 'float32' policy (a model's last layer) still cast their inputs to float32.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from torchestimator.keras.mixed_precision._policy import global_policy

_COMPUTE = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def step_autocast(device: torch.device | str, policy: Any = None) -> contextlib.AbstractContextManager:
    """The context a training or inference step of a mixed `policy` (default: the global one)
    runs in on `device`: `torch.autocast` to the policy's compute dtype on CUDA, else nothing
    (a no-op context: on the CPU the layers cast as they do today)."""
    device = torch.device(device)
    policy = global_policy() if policy is None else policy
    dtype = _COMPUTE.get(getattr(policy, "compute_dtype", None) or "")
    if device.type != "cuda" or dtype is None or policy.variable_dtype != "float32":
        return contextlib.nullcontext()
    return torch.autocast(device_type="cuda", dtype=dtype)
