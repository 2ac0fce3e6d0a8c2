"""The step's mixed-precision context: `torch.autocast` under a mixed policy, on every device
torch has an autocast for (CUDA, the CPU, ...).

Under a mixed policy ('mixed_float16', 'mixed_bfloat16') `fit`, `evaluate` and `predict` run
each step's forward pass under `torch.autocast(device_type, dtype=compute dtype)`: an op the
layers do not cast themselves (a custom layer's `inputs @ self.w` on a float32 weight) computes
in the compute dtype as in TF, where the float16 layers' weights are read as float16. The
layers still cast their inputs to their compute dtype (so nothing is cast twice: autocast finds
them in the compute dtype already); the weights stay float32, and the backward pass and the
optimizer update run outside autocast. Layers of a float policy ('float32', a model's last
layer in TF's guide) run with autocast off (`_engine.precision.precision_exempt`), so they
compute in float32 as TF's do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from torchestimator._engine import precision
from torchestimator.keras.mixed_precision._policy import global_policy


def step_autocast(device: torch.device | str, policy: Any = None) -> contextlib.AbstractContextManager:
    """The context a training or inference step of a mixed `policy` (default: the global one)
    runs its forward pass in on `device`: `torch.autocast` to the policy's compute dtype where
    torch has an autocast for the device and dtype, else a no-op context (the layers' own casts
    apply). Policies whose weights are not float32 ('float16', 'float32') get the no-op."""
    policy = global_policy() if policy is None else policy
    if getattr(policy, "variable_dtype", None) != "float32":
        return contextlib.nullcontext()
    return precision.forward_autocast(device, getattr(policy, "compute_dtype", None))


def _mixed(layer: Any) -> bool:
    name = getattr(layer, "_dtype_policy_name", None)
    return isinstance(name, str) and name.startswith("mixed_")


def model_autocast_dtype(model: Any) -> torch.dtype | None:
    """The dtype `model`'s steps autocast to: its own policy's compute dtype when the policy is
    mixed, else that of its first layer with a mixed policy; None when no layer is mixed."""
    for layer in model._flatten_layers(include_self=True):
        name = getattr(layer, "_dtype_policy_name", None)
        if isinstance(name, str) and name.startswith("mixed_"):
            return precision.compute_dtype(name[len("mixed_"):])
    return None


@contextlib.contextmanager
def model_precision(model: Any, device: torch.device) -> Iterator[Any]:
    """While open (around the steps of a `fit`, `evaluate` or `predict` of `model` on `device`),
    yields the per-step forward context factory (a callable returning `torch.autocast`), or None
    when the model has no mixed layer or torch no autocast for the device; the model's layers of
    a float policy run with autocast off for the block."""
    dtype = model_autocast_dtype(model)
    if dtype is None or not precision.autocast_supported(device.type, dtype):
        yield None
        return
    exempt = [  # float layers, but not those holding mixed ones (a float32 model of mixed layers)
        layer for layer in model._flatten_layers(include_self=True)
        if not _mixed(layer) and getattr(layer, "_compute_dtype", None) in (torch.float32, torch.float64)
        and not any(_mixed(inner) for inner in layer._flatten_layers(include_self=False))
    ]
    device_type = device.type

    def forward_context() -> contextlib.AbstractContextManager:
        return torch.autocast(device_type=device_type, dtype=dtype)

    with precision.precision_exempt(exempt, device_type):
        yield forward_context
