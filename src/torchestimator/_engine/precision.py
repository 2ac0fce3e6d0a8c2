"""The step's mixed-precision context: `torch.autocast` for the device a step runs on.

A front (Keras' `fit`/`evaluate`/`predict`, the Estimator's step) that runs under a mixed
dtype policy ('mixed_float16', 'mixed_bfloat16') wraps the forward pass of each step in
`forward_autocast(device, dtype)`: matmuls and convolutions compute in the policy's dtype,
ops that need float32 (losses, softmax, norms) in float32, and the float32 weights' casts are
cached for the step. The backward pass and the optimizer's update run outside it, as PyTorch
recommends; the weights stay float32. Where torch has no autocast for the device (the `meta`
or `lazy` devices) or the dtype (float16 on an old torch's CPU), the context does nothing and
the layers' own casts to their compute dtype are the mixed precision, as before.

`precision_exempt(modules, device_type)` turns autocast off inside modules that must compute
in float32 under a mixed model (a Keras layer given `dtype='float32'`, TF's advice for the
model's last layer), for as long as the returned context is open.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import torch

_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def compute_dtype(name: Any) -> torch.dtype | None:
    """The autocast dtype of a compute dtype (`'float16'`, `'bfloat16'`, or the torch dtype);
    None for any other (float32 and float64 compute without autocast)."""
    if isinstance(name, torch.dtype):
        return name if name in (torch.float16, torch.bfloat16) else None
    return _DTYPES.get(name) if isinstance(name, str) else None


@functools.cache
def autocast_supported(device_type: str, dtype: torch.dtype) -> bool:
    """Whether this torch runs `torch.autocast(device_type, dtype)` (it disables itself, with a
    warning, where the device or dtype has no autocast; that is asked once per pair)."""
    available = getattr(torch.amp, "is_autocast_available", None)
    if available is not None and not available(device_type):
        return False
    if device_type not in ("cpu", "cuda", "xpu", "hpu", "mps", "xla"):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe = torch.autocast(device_type=device_type, dtype=dtype)
    except (RuntimeError, ValueError, AssertionError):
        return False
    return bool(getattr(probe, "_enabled", False))


def forward_autocast(device: torch.device | str | None, dtype: Any) -> contextlib.AbstractContextManager:
    """`torch.autocast(device.type, dtype)` for the forward pass of a step on `device` in the
    compute dtype `dtype` ('float16', 'bfloat16' or the torch dtype); a no-op context when
    `dtype` is not a reduced float, `device` is None, or torch has no autocast for the pair."""
    fast = compute_dtype(dtype)
    if fast is None or device is None:
        return contextlib.nullcontext()
    device_type = torch.device(device).type
    if not autocast_supported(device_type, fast):
        return contextlib.nullcontext()
    return torch.autocast(device_type=device_type, dtype=fast)


@contextlib.contextmanager
def precision_exempt(modules: Iterable[torch.nn.Module], device_type: str) -> Iterator[None]:
    """While open, each of `modules` runs its forward with autocast off on `device_type` (its
    own casts, e.g. to float32, decide its dtypes); torch forward hooks turn autocast off before
    and back on after the module's forward. The hooks are removed when the block ends, and an
    autocast a failing forward left off is restored then."""
    modules = list(modules)
    if not modules:
        yield
        return
    open_contexts: list[Any] = []

    def off(module: torch.nn.Module, args: Any) -> None:
        context = torch.autocast(device_type=device_type, enabled=False)
        context.__enter__()
        open_contexts.append(context)

    def back_on(module: torch.nn.Module, args: Any, output: Any) -> None:
        if open_contexts:
            open_contexts.pop().__exit__(None, None, None)

    handles = []
    try:
        for module in modules:
            handles.append(module.register_forward_pre_hook(off))
            handles.append(module.register_forward_hook(back_on))
        yield
    finally:
        while open_contexts:  # a forward raised between the two hooks
            open_contexts.pop().__exit__(None, None, None)
        for handle in handles:
            handle.remove()
