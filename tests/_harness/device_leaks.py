"""A second device on a CPU-only machine, so that the default (CPU) test run catches device leaks.

A GPU run fails with `Expected all tensors to be on the same device ... cuda:0 ... cpu` when the
library makes a tensor (a weight, a metric's state, an optimizer slot, a feature-column table, a
constant) on the CPU while the batch is on the GPU. A CPU-only run never sees it: there is one
device. PyTorch's lazy-tensor TorchScript backend (`torch._lazy.ts_backend`, shipped in the CPU
wheels) gives a second, real device, `lazy:0`: its tensors hold real values (computed on the CPU
when read), autograd and `.item()`/`.cpu()` work, and an operation mixing a `lazy` tensor with a
CPU tensor raises as CUDA does (`Input tensor is not a lazy tensor`). Running the library with
`TORCHESTIMATOR_DEVICE=lazy:0` is therefore a stand-in for a CUDA machine:

    with on_leak_device() as device:      # TORCHESTIMATOR_DEVICE=lazy:0 for the block
        estimator.train(input_fn, steps=1)  # raises where a GPU run would
        assert_on_device(model, device)    # every weight / slot / state tensor is there

What it catches: a tensor created on the CPU (or moved there) that meets the batch in an
operation; a weight, slot or metric state left on the CPU (`assert_on_device` walks them, even
when no operation mixes them); `.numpy()`/`np.asarray`/`float` of a non-CPU tensor that does not
copy to the host. What it cannot: a CPU 0-dim tensor mixed with a device tensor (CUDA accepts
it, so does `lazy`: not a failure either way, but a host-to-device copy per use); a needless host
sync (`.item()` works on `lazy` as on CUDA); CUDA-only behaviour (streams, `non_blocking`
copies, memory, kernels that exist on CPU but not CUDA or the reverse); operations the lazy
backend runs through its CPU fallback are checked for devices but not for CUDA support.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import torch

_ENV = "TORCHESTIMATOR_DEVICE"


def leak_device() -> torch.device:
    """The second device (`lazy:0`), initialising torch's lazy TorchScript backend once (through
    the library, which does the same for `TORCHESTIMATOR_DEVICE=lazy:0` in any process)."""
    from torchestimator._engine import loop  # noqa: PLC0415

    if not loop._LAZY_READY:
        loop._ready_lazy_backend()
    return torch.device("lazy", 0)


def available() -> bool:
    """Whether this torch build has the lazy backend (the CPU wheels do)."""
    try:
        leak_device()
    except Exception:  # noqa: BLE001 - any failure means: not here
        return False
    return True


_TORCH_UNBIND = torch.Tensor.unbind
_TORCH_UNBIND_FN = torch.unbind


def _unbind(self: torch.Tensor, dim: int = 0) -> tuple:
    # The lazy backend's `unbind` gives tensors that claim `lazy:0` but that the next lazy
    # operation refuses as CPU tensors (a false "leak"): select each slice instead.
    if self.device.type == "lazy":
        return tuple(self.select(dim, i) for i in range(self.shape[dim]))
    return _TORCH_UNBIND(self, dim)


def _unbind_fn(input: torch.Tensor, dim: int = 0) -> tuple:  # noqa: A002 - torch's name
    return _unbind(input, dim)


_TORCH_SPLIT = torch.Tensor.split
_TORCH_CHUNK = torch.Tensor.chunk
_TORCH_CHUNK_FN = torch.chunk


def _narrowed(tensor: torch.Tensor, sizes: list[int], dim: int) -> tuple:
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return tuple(tensor.narrow(dim, start, size) for start, size in zip(starts, sizes))


def _split(self: torch.Tensor, split_size: Any, dim: int = 0) -> tuple:
    # `split` and `chunk` of a lazy tensor have `unbind`'s bug: `narrow` each part instead
    if self.device.type != "lazy":
        return _TORCH_SPLIT(self, split_size, dim)
    length = self.shape[dim]
    if isinstance(split_size, int):
        sizes = [min(split_size, length - start) for start in range(0, length, split_size)] or [0]
    else:
        sizes = list(split_size)
    return _narrowed(self, sizes, dim)


def _chunk(self: torch.Tensor, chunks: int, dim: int = 0) -> tuple:
    if self.device.type != "lazy":
        return _TORCH_CHUNK(self, chunks, dim)
    length = self.shape[dim]
    size = -(-length // chunks) if length else 0
    return _split(self, size, dim) if size else (self,)


def _chunk_fn(input: torch.Tensor, chunks: int, dim: int = 0) -> tuple:  # noqa: A002 - torch's name
    return _chunk(input, chunks, dim)


def route_around_lazy_bugs() -> None:
    """Routes `unbind`, `split` and `chunk` of lazy tensors through `select`/`narrow` (their own
    lazy kernels give parts that the next lazy operation refuses as CPU tensors: a false leak)."""
    torch.Tensor.unbind = _unbind  # type: ignore[method-assign]
    torch.unbind = _unbind_fn
    torch.Tensor.split = _split  # type: ignore[method-assign]
    torch.Tensor.chunk = _chunk  # type: ignore[method-assign]
    torch.chunk = _chunk_fn


def restore_torch() -> None:
    """Undoes `route_around_lazy_bugs`."""
    torch.Tensor.unbind = _TORCH_UNBIND  # type: ignore[method-assign]
    torch.unbind = _TORCH_UNBIND_FN
    torch.Tensor.split = _TORCH_SPLIT  # type: ignore[method-assign]
    torch.Tensor.chunk = _TORCH_CHUNK  # type: ignore[method-assign]
    torch.chunk = _TORCH_CHUNK_FN


@contextlib.contextmanager
def on_leak_device() -> Iterator[torch.device]:
    """Sets `TORCHESTIMATOR_DEVICE` to the second device for the block (the library's
    `default_device()`); yields the device. The variable's previous value is back afterwards.
    (`unbind`, `split` and `chunk` of a lazy tensor are routed around a lazy-backend bug for
    the block: `route_around_lazy_bugs`; a whole lazy run, `lazy_suite`, keeps them routed.)"""
    device = leak_device()
    previous = os.environ.get(_ENV)
    os.environ[_ENV] = str(device)
    routed_already = torch.Tensor.split is _split
    route_around_lazy_bugs()
    from torchestimator.keras.engine.call_context import WEIGHTS_OFF_HOST  # noqa: PLC0415

    weights_off_host = WEIGHTS_OFF_HOST[0]
    try:
        yield device
    finally:
        if not routed_already:
            restore_torch()
        # the weights made in the block were its own: later CPU tests keep the fast path
        WEIGHTS_OFF_HOST[0] = weights_off_host
        if previous is None:
            os.environ.pop(_ENV, None)
        else:
            os.environ[_ENV] = previous


def _tensors(obj: Any, prefix: str, seen: set[int]) -> Iterator[tuple[str, torch.Tensor]]:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        yield prefix, obj
        return
    if isinstance(obj, torch.nn.Module):
        for name, t in obj.state_dict(keep_vars=True).items():
            if isinstance(t, torch.Tensor):
                yield f"{prefix}.{name}", t
        for name, child in vars(obj).items():
            if not name.startswith("_") or name in ("_optimizer", "_metrics", "_tables"):
                yield from _tensors(child, f"{prefix}.{name}", seen)
        return
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _tensors(value, f"{prefix}[{key!r}]", seen)
        return
    if isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            yield from _tensors(value, f"{prefix}[{i}]", seen)
        return
    slot_lists = getattr(obj, "_slot_lists", None)
    if callable(slot_lists):  # a Keras optimizer: its variables, slots, EMA and extra variables
        # (`optimizer.variables[0]`, the `iterations` count, is a host int by design: read back
        # as a CPU tensor when asked for, never used in a step)
        yield from _tensors(list(getattr(obj, "_vars", [])), f"{prefix}._vars", seen)
        yield from _tensors([t for _, _, t in slot_lists()], f"{prefix}.slots", seen)
        yield from _tensors(list(getattr(obj, "_ema", [])), f"{prefix}._ema", seen)
        yield from _tensors(list(getattr(obj, "_extra_variables", [])), f"{prefix}.extra", seen)
        return
    state = getattr(obj, "state_dict", None)
    if callable(state) and hasattr(obj, "param_groups"):  # a torch optimizer: its slots
        yield from _tensors(state(), f"{prefix}.state_dict()", seen)
        return
    for name in ("variables", "_vars", "_extra_variables", "_kernel", "state"):
        value = getattr(obj, name, None)
        if callable(value) and name == "variables":
            try:
                value = value()
            except TypeError:
                continue
        if value is not None and not isinstance(value, (str, bytes, int, float)):
            yield from _tensors(value, f"{prefix}.{name}", seen)


def off_device(obj: Any, device: torch.device, name: str = "obj") -> list[str]:
    """Names of the tensors reachable from `obj` (a layer/model's state, an optimizer's variables
    and slots, a metric's variables, lists and dicts of these) that are not on `device`."""
    return [f"{n} on {t.device}" for n, t in _tensors(obj, name, set())
            if t.device.type != device.type and t.device.type != "meta"]


def assert_on_device(obj: Any, device: torch.device, name: str = "obj") -> None:
    """Fails naming each tensor reachable from `obj` that is not on `device` (see `off_device`)."""
    wrong = off_device(obj, device, name)
    assert not wrong, f"{len(wrong)} tensor(s) not on {device}: " + "; ".join(wrong[:12])
