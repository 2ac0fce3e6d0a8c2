"""In-place variable updates (TF's `state_ops`): the variable scatters (`scatter_add`, ...,
`scatter_nd_update`), `batch_scatter_update` and `count_up_to`, as `tf.compat.v1`'s functions and
as `tf.Variable`'s methods. Each reads the variable `ref`, computes the new value where the
variable is and assigns it.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch

from torchestimator._ops.array_ops import _scatter_nd
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator.errors import InvalidArgumentError, OutOfRangeError

Tensor = torch.Tensor


def _t(value: Any, name: str) -> Tensor:
    out = value if isinstance(value, Tensor) else convert_to_tensor(value, name=name)
    if not isinstance(out, Tensor):
        raise TypeError(f"`{name}` must be numeric, got strings.")
    return out


# ----------------------------------------------------------------------------- variable scatters
def _ref(ref: Any, op: str) -> Any:
    if not (hasattr(ref, "assign") and hasattr(ref, "read_value")):
        raise TypeError(f"{op}: `ref` must be a tf.Variable (TF1's scatter ops update a variable "
                        f"in place), got {type(ref).__name__}; use tf.tensor_scatter_nd_* for "
                        "tensors.")
    return ref


def _index_reduce(value: Tensor, idx: Tensor, upd: Tensor, reduce: str) -> None:
    with warnings.catch_warnings():  # torch calls index_reduce_ "beta"
        warnings.simplefilter("ignore", UserWarning)
        value.index_reduce_(0, idx, upd, reduce)


def _scatter(op: str, kind: str, ref: Any, indices: Any, updates: Any) -> Any:
    ref = _ref(ref, op)
    value = ref.read_value().detach().clone()
    given = _t(indices, "indices")
    idx = given.to(torch.int64).reshape(-1).to(value.device)  # numpy ids: host
    n = value.shape[0]
    if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise InvalidArgumentError(None, None, f"{op}: indices {idx.tolist()} out of range "
                                   f"[0, {n}) of `ref`'s first dimension.")
    upd = convert_to_tensor(updates, dtype_hint=value.dtype, name="updates")
    upd = upd.to(device=value.device, dtype=value.dtype) if isinstance(upd, Tensor) else torch.as_tensor(
        upd, dtype=value.dtype, device=value.device)
    want = (idx.numel(),) + tuple(value.shape[1:])
    try:
        upd = torch.broadcast_to(upd, tuple(given.shape) + tuple(value.shape[1:])).reshape(want)
    except RuntimeError:
        raise InvalidArgumentError(
            None, None, f"{op}: `updates` of shape {list(upd.shape)} must have shape "
            f"indices.shape + ref.shape[1:] = {list(given.shape) + list(value.shape[1:])}."
        ) from None
    if kind == "add":
        value.index_add_(0, idx, upd)
    elif kind == "sub":
        value.index_add_(0, idx, -upd)
    elif kind == "mul":
        _index_reduce(value, idx, upd, "prod")
    elif kind == "div":
        for i, j in enumerate(idx.tolist()):
            value[j] = value[j] / upd[i] if value.is_floating_point() else torch.div(
                value[j], upd[i], rounding_mode="trunc")
    elif kind == "min":
        _index_reduce(value, idx, upd, "amin")
    elif kind == "max":
        _index_reduce(value, idx, upd, "amax")
    else:
        value[idx] = upd
    ref.assign(value)
    return ref


def _scatter_fn(kind: str, use_locking_default: bool):
    verb = {"add": "Adds", "sub": "Subtracts", "mul": "Multiplies", "div": "Divides",
            "min": "Takes the minimum of", "max": "Takes the maximum of",
            "update": "Assigns"}[kind]

    def fn(ref: Any, indices: Any, updates: Any, use_locking: bool = use_locking_default,
           name: str | None = None) -> Any:
        return _scatter(f"scatter_{kind}", kind, ref, indices, updates)

    fn.__name__ = fn.__qualname__ = f"scatter_{kind}"
    fn.__doc__ = (f"{verb} sparse updates into the rows `indices` of the variable `ref` (TF1's "
                  f"`tf.compat.v1.scatter_{kind}`; repeated indices all apply).\n\nReturns:\n"
                  "    `ref`, updated in place.")
    return fn


scatter_add = _scatter_fn("add", False)
scatter_sub = _scatter_fn("sub", False)
scatter_mul = _scatter_fn("mul", False)
scatter_div = _scatter_fn("div", False)
scatter_min = _scatter_fn("min", False)
scatter_max = _scatter_fn("max", False)
scatter_update = _scatter_fn("update", True)


def _scatter_nd_fn(kind: str, use_locking_default: bool):
    tf_fn = f"tensor_scatter_nd_{kind}"

    def fn(ref: Any, indices: Any, updates: Any, use_locking: bool = use_locking_default,
           name: str | None = None) -> Any:
        ref = _ref(ref, f"scatter_nd_{kind}")
        value = ref.read_value().detach()
        ref.assign(getattr(_scatter_nd, tf_fn)(value, indices, updates))
        return ref

    fn.__name__ = fn.__qualname__ = f"scatter_nd_{kind}"
    fn.__doc__ = (f"Applies sparse `updates` at the N-D `indices` of the variable `ref` ({kind}; "
                  f"TF1's `tf.compat.v1.scatter_nd_{kind}`).\n\nReturns:\n    `ref`, updated in "
                  "place.")
    return fn


scatter_nd_add = _scatter_nd_fn("add", False)
scatter_nd_sub = _scatter_nd_fn("sub", False)
scatter_nd_update = _scatter_nd_fn("update", True)
scatter_nd_max = _scatter_nd_fn("max", False)
scatter_nd_min = _scatter_nd_fn("min", False)


def batch_scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                         name: str | None = None) -> Any:
    """Updates the variable `ref` at `indices` within each batch (TF1's
    `tf.compat.v1.batch_scatter_update`): `ref[i..., indices[i..., j]] = updates[i..., j]`.

    Returns:
        `ref`, updated in place.
    """
    op = "batch_scatter_update"
    ref = _ref(ref, op)
    idx = _t(indices, "indices").to(torch.int64)
    value = ref.read_value().detach()
    if idx.ndim < 1 or tuple(value.shape[: idx.ndim - 1]) != tuple(idx.shape[:-1]):
        raise ValueError(f"{op}: `indices` of shape {list(idx.shape)} must match `ref`'s "
                         f"batch dimensions {list(value.shape[: max(idx.ndim - 1, 0)])}.")
    grids = torch.meshgrid(*[torch.arange(d, device=idx.device) for d in idx.shape], indexing="ij")
    full = torch.stack(list(grids[:-1]) + [idx], dim=-1)
    ref.assign(_scatter_nd.tensor_scatter_nd_update(value, full, updates))
    return ref


def count_up_to(ref: Any, limit: int, name: str | None = None) -> Tensor:
    """Increments the integer variable `ref` until it reaches `limit` (TF1's
    `tf.compat.v1.count_up_to`).

    Returns:
        The value of `ref` before the increment.

    Raises:
        OutOfRangeError: `ref` has reached `limit`.
    """
    ref = _ref(ref, "count_up_to")
    old = ref.read_value().detach().clone()
    if old.is_floating_point():
        raise TypeError(f"count_up_to: `ref` must be an int32 or int64 variable, got "
                        f"{dtype_name(old.dtype)}.")
    if int(old) >= int(limit):
        raise OutOfRangeError(None, None, f"count_up_to: Reached limit of {int(limit)}.")
    ref.assign(old + 1)
    return old
