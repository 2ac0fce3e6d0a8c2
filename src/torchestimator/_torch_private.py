"""The only module that reads torch's private attributes (`Tensor._version`, `Tensor._base`,
`torch._C`). Each is checked once, at import, to behave as the fast paths that use it
assume; when a torch release changes it, the check fails and a public fallback takes its
place (the fast path turns off, results stay the same). `SUPPORTED` says which held.

- `version(t)`: an int that changes whenever `t` is modified in place (the autograd version
  counter). Fallback: a fresh object each call, so a cache keyed on it never hits.
- `view_base(t)`: the tensor `t` is a view of, or None. Fallback: always None (callers then
  copy instead of reusing the base).
- `disabled_torch_function_impl`: what a `torch.Tensor` subclass sets as
  `__torch_function__` to behave as a plain tensor in every op (no subclass wrapping).
  Fallback: a classmethod that runs the op with the subclass stripped from its arguments.
- `is_tracing()`: `torch.jit.is_tracing()` without its Python wrapper.
- `flatten_dense_tensors(tensors)`: the tensors' values one after another in a new 1-D tensor,
  in one C++ call. Fallback: `torch.cat` of `reshape(-1)` views.
- `op_kernel(target)`: for an ATen `OpOverload` (`torch.ops.aten.addmm.default`), the C++
  callable it dispatches to (`OpOverload._op`), skipping its Python `__call__`; anything else
  as it is. Fallback: the target itself.
- `unscale_and_check_finite(grads, found_inf, inv_scale)`: multiplies each gradient by
  `inv_scale` in place and sets `found_inf` to 1 when one holds an inf or a NaN, in one fused
  kernel (`torch._amp_foreach_non_finite_check_and_unscale_`, torch's GradScaler's), reading
  nothing back. Fallback: the same with one `mul_` and one check per gradient.

Users (a name without users is deleted): `version` -- `feature_column/_transform.py`,
`keras/optimizers/ftrl.py`, `keras/engine/one_hot_labels.py`, `keras/layers/rnn/_fused.py`,
`keras/metrics/_confusion_utils.py`; `view_base` --
`keras/metrics/_metric.py` (the packed feature columns ask `data.columns.packed_matrix`,
which needs none); `disabled_torch_function_impl` -- `keras/metrics/_variable.py`;
`is_tracing` -- `keras/engine/layer_utils.py`; `flatten_dense_tensors` --
`keras/optimizers/_flat.py`, `keras/layers/rnn/_fused.py`; `op_kernel` -- `serving/_fast_call.py`;
`unscale_and_check_finite` -- `keras/mixed_precision/_loss_scale_optimizer.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

SUPPORTED: dict[str, bool] = {}


def _check(name: str, probe: Callable[[], bool]) -> bool:
    try:
        SUPPORTED[name] = bool(probe())
    except Exception:  # any failure of the private API means: use the fallback
        SUPPORTED[name] = False
    return SUPPORTED[name]


def _version_behaves() -> bool:
    t = torch.zeros(2)
    before = t._version
    t.add_(1)
    return isinstance(before, int) and t._version != before


def _base_behaves() -> bool:
    base = torch.zeros(2, 3)
    return base[:, 1]._base is base and base._base is None


if _check("version", _version_behaves):
    def version(t: torch.Tensor) -> Any:
        """The in-place modification counter of `t` (changes on every in-place write)."""
        return t._version
else:  # pragma: no cover - depends on the torch release
    def version(t: torch.Tensor) -> Any:
        """Never equal to an earlier answer: caches keyed on it always recompute."""
        return object()

if _check("view_base", _base_behaves):
    def view_base(t: torch.Tensor) -> torch.Tensor | None:
        """The tensor `t` is a view of, or None when `t` owns its storage."""
        return t._base
else:  # pragma: no cover
    def view_base(t: torch.Tensor) -> torch.Tensor | None:
        """Unknown: None (callers take their general path)."""
        return None


def _plain(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and type(value) is not torch.Tensor:
        return value.as_subclass(torch.Tensor)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _stripped_torch_function(cls: type, func: Callable, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    return func(*_plain(tuple(args)), **_plain(dict(kwargs or {})))


def _disabled_behaves() -> bool:
    impl = torch._C._disabled_torch_function_impl

    class _Probe(torch.Tensor):
        __torch_function__ = impl

    probe = torch.zeros(2).as_subclass(_Probe)
    return type(probe + 1) is torch.Tensor


if _check("disabled_torch_function_impl", _disabled_behaves):
    disabled_torch_function_impl = torch._C._disabled_torch_function_impl
else:  # pragma: no cover
    disabled_torch_function_impl = classmethod(_stripped_torch_function)

if _check("is_tracing", lambda: torch._C._is_tracing() is False):
    is_tracing: Callable[[], bool] = torch._C._is_tracing
else:  # pragma: no cover
    is_tracing = torch.jit.is_tracing


def _flatten_behaves() -> bool:
    out = torch._C._nn.flatten_dense_tensors([torch.ones(2, 2), torch.zeros(3)])
    return out.tolist() == [1.0] * 4 + [0.0] * 3


def _flatten_fallback(tensors: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([t.reshape(-1) for t in tensors])


if _check("flatten_dense_tensors", _flatten_behaves):
    flatten_dense_tensors: Callable[[list[torch.Tensor]], torch.Tensor] = torch._C._nn.flatten_dense_tensors
else:  # pragma: no cover
    flatten_dense_tensors = _flatten_fallback


def _op_kernel_behaves() -> bool:
    op = torch.ops.aten.add.Tensor
    return isinstance(op, torch._ops.OpOverload) and op._op(torch.ones(1), torch.ones(1)).tolist() == [2.0]


def _op_kernel(target: Any) -> Any:
    return target._op if isinstance(target, torch._ops.OpOverload) else target


def _op_itself(target: Any) -> Any:
    return target


op_kernel: Callable[[Any], Any] = _op_kernel if _check("op_kernel", _op_kernel_behaves) else _op_itself


def _unscale_behaves() -> bool:
    grads, found = [torch.tensor([2.0, 4.0]), torch.tensor([float("inf")])], torch.zeros(1)
    torch._amp_foreach_non_finite_check_and_unscale_(grads[:1], found, torch.full((1,), 0.5))
    clean = found.tolist() == [0.0] and grads[0].tolist() == [1.0, 2.0]
    torch._amp_foreach_non_finite_check_and_unscale_(grads[1:], found, torch.full((1,), 0.5))
    return clean and found.tolist() == [1.0]


def _unscale_fallback(grads: list[torch.Tensor], found_inf: torch.Tensor,
                      inv_scale: torch.Tensor) -> None:
    for g in grads:
        g.mul_(inv_scale)
        found_inf.copy_(torch.maximum(found_inf, (~torch.isfinite(g)).any().to(found_inf.dtype)))


if _check("unscale_and_check_finite", _unscale_behaves):
    unscale_and_check_finite: Callable[..., None] = torch._amp_foreach_non_finite_check_and_unscale_
else:  # pragma: no cover
    unscale_and_check_finite = _unscale_fallback
