"""Slicing and padding: tf.slice, strided_slice, pad, reverse, reverse_sequence, roll."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.array_ops._common import (
    Tensor,
    _index_tensor,
    _int_list,
    _like,
    _numeric,
    _pyslice,
    _shape,
    _strings,
)
from torchestimator._ops.convert import convert_to_tensor, normalize_axis, shapes_error
from torchestimator.errors import InvalidArgumentError


def _fill_value(value: Any, default: Any, dtype: torch.dtype, device: Any, arg: str) -> Tensor:
    if value is None:
        return torch.tensor(default, dtype=dtype, device=device)
    t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtype)
    if t.dim() != 0:
        raise InvalidArgumentError(
            None, None, f"one_hot: {arg} must be a scalar, got shape {_shape(t)}."
        )
    return t.to(device)


def _paddings(paddings: Any, rank: int, shape: Any, op: str) -> list[tuple[int, int]]:
    if isinstance(paddings, (Tensor, np.ndarray)):
        paddings = paddings.tolist()
    try:
        pairs = [(int(p[0]), int(p[1])) for p in paddings]
        ok = all(len(p) == 2 for p in paddings)
    except (TypeError, IndexError):
        ok = False
    if not ok or len(pairs) != rank:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `paddings` must have shape [{rank}, 2] (one [before, after] pair per "
            "dimension of "
            f"the input of shape {list(shape)}), got {paddings!r}.",
        )
    for p in pairs:
        if p[0] < 0 or p[1] < 0:
            raise InvalidArgumentError(
                None, None, f"{op}: paddings must be non-negative, got {pairs}."
            )
    return pairs


def pad(
    tensor: Any,
    paddings: Any,
    mode: str = "CONSTANT",
    constant_values: Any = 0,
    name: str | None = None,
) -> Tensor:
    """Pads a tensor: `paddings[D] = [before, after]` entries are added to dimension D, filled
    with `constant_values` (`mode='CONSTANT'`) or mirrored (`'REFLECT'` excludes the border,
    `'SYMMETRIC'` includes it); `mode` is case-insensitive.

    Returns:
        A tensor of the same dtype, with shape `before + dim + after` in each dimension.
    """
    x = _numeric(tensor, "pad", "tensor")
    mode_up = mode.upper() if isinstance(mode, str) else mode
    if mode_up not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(
            'pad: value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
            f'"SYMMETRIC". Received `mode` = {mode!r}'
        )
    pairs = _paddings(paddings, x.dim(), x.shape, "pad")
    if mode_up == "CONSTANT":
        value = _like(constant_values, x.dtype, "pad", "constant_values")
        if value.dim() != 0:
            raise InvalidArgumentError(None, None, "pad: `constant_values` must be a scalar.")
        if not any(b or a for b, a in pairs):
            return x.clone()
        flat = [v for b, a in reversed(pairs) for v in (b, a)]
        if not value.requires_grad:
            return torch.nn.functional.pad(x, flat, value=value.item())
        out = value.to(x.device).expand([d + b + a for d, (b, a) in zip(x.shape, pairs)]).clone()
        out[tuple(_pyslice(b, b + d) for d, (b, _) in zip(x.shape, pairs))] = x
        return out
    out = x
    for axis, (before, after) in enumerate(pairs):
        if not before and not after:
            continue
        n = x.shape[axis]
        limit = n - 1 if mode_up == "REFLECT" else n
        if before > limit or after > limit:
            word = "less than" if mode_up == "REFLECT" else "no greater than"
            raise InvalidArgumentError(
                None,
                None,
                f"pad: {mode_up} paddings must be {word} the dimension size: "
                f"[{before}, {after}] for "
                f"dimension {axis} of size {n} (input shape {_shape(x)}).",
            )
        i = torch.arange(-before, n + after, device=x.device)
        if mode_up == "REFLECT":
            i = i.abs()
            i = (n - 1) - ((n - 1) - i).abs()
        else:
            i = torch.where(i < 0, -i - 1, i)
            i = torch.where(i >= n, 2 * n - 1 - i, i)
        out = out.index_select(axis, i)
    return out


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Any:
    """Reverses the dimensions listed in `axis` (a list; negative axes count from the end).

    Returns:
        A tensor of the same shape.
    """
    x = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    if isinstance(x, np.ndarray):
        return _strings(reverse, x, axis)
    if isinstance(axis, int) or (isinstance(axis, (Tensor, np.ndarray)) and axis.ndim == 0):
        raise InvalidArgumentError(
            None,
            None,
            f"reverse: `axis` must be a 1-D list of dimensions (e.g. [{int(axis)}]), got {axis!r}.",
        )
    axes = normalize_axis(list(_int_list(axis, "reverse", "axis")), x.dim(), "reverse")
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(
            None, None, f"reverse: an axis is specified more than once in {list(axis)}."
        )
    return torch.flip(x, axes) if axes else x


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Any:
    """Extracts a slice of `size[i]` entries from `begin[i]` in each dimension (`size[i] = -1`
    takes all remaining entries).

    Returns:
        A tensor of shape `size`.
    """
    x = input_ if isinstance(input_, Tensor) else convert_to_tensor(input_)
    if isinstance(x, np.ndarray):
        return _strings(slice, x, begin, size)
    b = _int_list(begin, "slice", "begin")
    s = _int_list(size, "slice", "size")
    rank = x.dim()
    if len(b) != rank or len(s) != rank:
        raise InvalidArgumentError(
            None,
            None,
            f"slice: expected begin {b} and size {s} to have {rank} entries (the rank of the input "
            f"of shape {_shape(x)}).",
        )
    index = []
    for i, (start, count, n) in enumerate(zip(b, s, x.shape)):
        if not 0 <= start <= n:
            raise InvalidArgumentError(
                None,
                None,
                f"slice: expected begin[{i}] in [0, {n}], but got {start} (input shape "
                f"{_shape(x)}).",
            )
        if count == -1:
            count = n - start
        if not 0 <= count <= n - start:
            raise InvalidArgumentError(
                None,
                None,
                f"slice: expected size[{i}] in [0, {n - start}], but got {count} (input shape "
                f"{_shape(x)}, begin {b}).",
            )
        index.append(_pyslice(start, start + count))
    return x[tuple(index)]


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Any:
    """Extracts a strided slice, as Python's `input_[begin:end:strides, ...]` spelled with masks:
    bit i of `begin_mask`/`end_mask` ignores `begin[i]`/`end[i]`, of `ellipsis_mask` makes entry i
    an ellipsis, of `new_axis_mask` a new axis, of `shrink_axis_mask` an index (removing the axis).

    Returns:
        The sliced tensor.
    """
    x = input_ if isinstance(input_, Tensor) else convert_to_tensor(input_)
    if isinstance(x, np.ndarray):
        return _strings(
            strided_slice,
            x,
            begin,
            end,
            strides,
            begin_mask,
            end_mask,
            ellipsis_mask,
            new_axis_mask,
            shrink_axis_mask,
        )
    b = _int_list(begin, "strided_slice", "begin")
    e = _int_list(end, "strided_slice", "end")
    s = [1] * len(b) if strides is None else _int_list(strides, "strided_slice", "strides")
    if not len(b) == len(e) == len(s):
        raise InvalidArgumentError(
            None,
            None,
            f"strided_slice: expected begin, end, and strides to be 1-D of equal size, but got "
            f"{len(b)}, {len(e)} and {len(s)} entries.",
        )
    spec: list[Any] = []
    for i in range(len(b)):
        bit = 1 << i
        if ellipsis_mask & bit:
            spec.append(Ellipsis)
        elif new_axis_mask & bit:
            spec.append(None)
        elif s[i] == 0:
            raise InvalidArgumentError(None, None, f"strided_slice: strides[{i}] must be non-zero.")
        elif shrink_axis_mask & bit:
            if s[i] < 0:
                raise InvalidArgumentError(
                    None, None, "strided_slice: only stride 1 allowed on non-range indexing."
                )
            spec.append(("index", b[i]))
        else:
            spec.append(
                _pyslice(None if begin_mask & bit else b[i], None if end_mask & bit else e[i], s[i])
            )
    if spec.count(Ellipsis) > 1:
        raise InvalidArgumentError(
            None, None, "strided_slice: multiple ellipses in slice spec not allowed."
        )
    rank = x.dim()
    real = sum(1 for item in spec if item is not Ellipsis and item is not None)
    if real > rank:
        raise InvalidArgumentError(
            None,
            None,
            f"strided_slice: index out of range using input dim {rank}; the input of shape "
            f"{_shape(x)} has only {rank} dims.",
        )
    index: list[Any] = []
    dim = 0
    for item in spec:
        if item is Ellipsis:
            index.append(Ellipsis)
            dim += rank - real
        elif item is None:
            index.append(None)
        elif isinstance(item, tuple):
            n = x.shape[dim]
            pos = item[1]
            if not -n <= pos < n:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"strided_slice: slice index {pos} of dimension {dim} out of bounds "
                    "(input shape "
                    f"{_shape(x)}).",
                )
            index.append(pos % n)
            dim += 1
        else:
            if item.step < 0:
                n = x.shape[dim]
                start, _, step = item.indices(n)
                count = len(range(*item.indices(n)))
                x = x.flip(dim)
                first = n - 1 - start
                item = (
                    _pyslice(first, first + (count - 1) * -step + 1, -step)
                    if count
                    else _pyslice(0, 0)
                )
            index.append(item)
            dim += 1
    return x[tuple(index)]


def reverse_sequence(
    input: Any,
    seq_lengths: Any,
    seq_axis: int | None = None,
    batch_axis: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Reverses the first `seq_lengths[b]` entries along `seq_axis` of each batch entry b
    (along `batch_axis`, default 0).

    Returns:
        A tensor of the same shape.
    """
    x = _numeric(input, "reverse_sequence")
    lengths = _index_tensor(seq_lengths, "reverse_sequence", "seq_lengths").to(x.device).long()
    if seq_axis is None:
        raise ValueError("reverse_sequence: `seq_axis` is required.")
    seq_axis = normalize_axis(seq_axis, x.dim(), "reverse_sequence")
    batch_axis = normalize_axis(
        0 if batch_axis is None else batch_axis, x.dim(), "reverse_sequence"
    )
    if lengths.shape != (x.shape[batch_axis],):
        raise shapes_error(
            "reverse_sequence",
            [x.shape[batch_axis]],
            lengths.shape,
            f"`seq_lengths` needs one length per entry of batch axis {batch_axis}.",
        )
    n = x.shape[seq_axis]
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > n):
        raise InvalidArgumentError(
            None,
            None,
            f"reverse_sequence: seq_lengths must be in [0, {n}], got {lengths.tolist()}.",
        )
    view_t = [1] * x.dim()
    view_t[seq_axis] = n
    view_b = [1] * x.dim()
    view_b[batch_axis] = lengths.numel()
    t = torch.arange(n, device=x.device).reshape(view_t)
    length = lengths.reshape(view_b)
    src = torch.where(t < length, length - 1 - t, t).expand(x.shape)
    return torch.gather(x, seq_axis, src)


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:
    """Rolls the elements of a tensor by `shift` along `axis` (both ints or equal-length lists).

    Returns:
        A tensor of the same shape.
    """
    x = _numeric(input, "roll")
    shifts = _int_list(shift, "roll", "shift")
    axes = _int_list(axis, "roll", "axis")
    if len(shifts) != len(axes):
        raise InvalidArgumentError(
            None,
            None,
            f"roll: shift {shifts} and axis {axes} must have the same number of entries.",
        )
    axes = [normalize_axis(a, x.dim(), "roll") for a in axes]
    return torch.roll(x, shifts, axes)
