"""Shape and indexing ops: tf.reshape, tf.concat, tf.gather, tf.where, tf.pad, ... over torch.

Every op takes tensors (or anything `tf.convert_to_tensor` accepts) and returns
`torch.Tensor`s, with TensorFlow 2.15's argument names, defaults and errors:
bad shapes raise `tf.errors.InvalidArgumentError` naming both shapes, out-of-range
indices raise it as TF does on CPU (TF never wraps negative indices). Index
outputs are int32 where TF's are (`argsort`, `unique`'s `idx`), int64 where TF's
are (`tf.where(condition)`).

Strings are numpy object arrays (the design's rule). The pure indexing ops
(`reshape`, `transpose`, `concat`, `stack`, `unstack`, `split`, `squeeze`,
`expand_dims`, `tile`, `repeat`, `gather`, `gather_nd`, `boolean_mask`,
`reverse`, `slice`, `strided_slice`, `broadcast_to`, `unique`, and `where`
with string branches) accept them too: they run on a tensor of element
positions and pick the strings with it.

Strided slicing with `[]` is torch's own indexing: `x[1:, ::2]`,
`x[..., tf.newaxis]` (`tf.newaxis` is None) work as in TF.
"""

from __future__ import annotations

import builtins
import collections
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    normalize_axis,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError

__all__ = [
    "argsort",
    "boolean_mask",
    "broadcast_to",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "concat",
    "expand_dims",
    "gather",
    "gather_nd",
    "meshgrid",
    "one_hot",
    "pad",
    "repeat",
    "reshape",
    "reverse",
    "reverse_sequence",
    "roll",
    "scatter_nd",
    "searchsorted",
    "sequence_mask",
    "slice",
    "sort",
    "split",
    "squeeze",
    "stack",
    "strided_slice",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update",
    "tile",
    "transpose",
    "unique",
    "unique_with_counts",
    "unravel_index",
    "unstack",
    "where",
]

Tensor = torch.Tensor
_pyslice = builtins.slice
_INDEX_DTYPES = (torch.int32, torch.int64, torch.int16, torch.int8, torch.uint8)

_REVERSED = [tuple(range(r - 1, -1, -1)) for r in range(8)]

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


# ----------------------------------------------------------------------------- helpers


def _tensor(value: Any) -> Any:
    """A tensor (or a numpy string array) for `value`; tensors pass through untouched."""
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _numeric(value: Any, op: str, arg: str = "input") -> Tensor:
    t = value if isinstance(value, Tensor) else convert_to_tensor(value)
    if isinstance(t, np.ndarray):
        raise TypeError(f"{op}: `{arg}` holds strings; this op takes numeric or bool tensors.")
    return t


def _like(value: Any, dtype: torch.dtype, op: str, arg: str) -> Tensor:
    """`value` as a tensor of `dtype`: Python numbers and lists take it (TF's preferred dtype);
    tensors and numpy arrays of another dtype are an error (TF does not promote)."""
    if isinstance(value, Tensor):
        t = value
    elif isinstance(value, (np.ndarray, np.generic)):
        t = convert_to_tensor(value)
    else:
        t = convert_to_tensor(value, dtype=dtype)
    if isinstance(t, np.ndarray):
        raise TypeError(f"{op}: `{arg}` holds strings; expected {dtype_name(dtype)} values.")
    if t.dtype is not dtype:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` has dtype {dtype_name(t.dtype)} but {dtype_name(dtype)} was expected "
            "(TensorFlow does not promote dtypes; use tf.cast).",
        )
    return t


def _index_tensor(value: Any, op: str, arg: str = "indices") -> Tensor:
    t = value if isinstance(value, Tensor) else convert_to_tensor(value)
    if isinstance(t, np.ndarray) or t.dtype not in _INDEX_DTYPES:
        kind = "strings" if isinstance(t, np.ndarray) else dtype_name(t.dtype)
        raise TypeError(f"{op}: `{arg}` must be an integer tensor (int32 or int64), got {kind}.")
    return t


def _int_list(value: Any, op: str, arg: str) -> list[int]:
    """A shape-like argument (list, tuple, Size, tensor, numpy array, int) as a list of ints."""
    if type(value) is list or type(value) is tuple or type(value) is torch.Size:
        if all(type(v) is int for v in value):
            return list(value)
    if isinstance(value, (Tensor, np.ndarray)):
        if value.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64) or (
            isinstance(value, np.ndarray) and value.dtype.kind not in "iu"
        ):
            raise TypeError(f"{op}: `{arg}` must hold integers, got {value!r}.")
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    try:
        out = []
        for v in value:
            if isinstance(v, (Tensor, np.ndarray)):
                v = v.item()
            if not isinstance(v, (int, np.integer)) or isinstance(v, builtins.bool):
                raise TypeError
            out.append(int(v))
        return out
    except TypeError:
        raise TypeError(f"{op}: `{arg}` must be a list of integers, got {value!r}.") from None


def _int(value: Any, op: str, arg: str) -> int:
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        if value.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64) or (
            not isinstance(value, Tensor) and np.asarray(value).dtype.kind not in "iu"
        ):
            raise TypeError(f"{op}: `{arg}` must be an integer, got {value!r}.")
        value = value.item()
    if not isinstance(value, int) or isinstance(value, builtins.bool):
        raise TypeError(f"{op}: `{arg}` must be an integer, got {value!r}.")
    return value


def _positions(array: np.ndarray, offset: int = 0) -> Tensor:
    return torch.arange(offset, offset + array.size).reshape(array.shape)


def _strings(fn: Callable[..., Any], array: np.ndarray, *args: Any, **kwargs: Any) -> Any:
    """Runs the indexing op `fn` on element positions of a string array and picks the strings."""
    flat = array.reshape(-1)
    out = fn(_positions(array), *args, **kwargs)
    if isinstance(out, Tensor):
        return flat[out.numpy()]
    return [flat[o.numpy()] for o in out]


def _strings_many(fn: Callable[..., Any], arrays: Sequence[np.ndarray], *args: Any) -> Any:
    flat = np.concatenate([a.reshape(-1) for a in arrays]) if arrays else np.empty(0, object)
    positions, offset = [], 0
    for a in arrays:
        positions.append(_positions(a, offset))
        offset += a.size
    return flat[fn(positions, *args).numpy()]


def _shape(x: Any) -> list[int]:
    return list(x.shape)


def _check_indices(flat: Tensor, bound: int, op: str) -> None:
    """TF's CPU check: every index in [0, bound) (TF does not wrap negative indices)."""
    if flat.numel() == 0:
        return
    low, high = torch.aminmax(flat)
    if low < 0 or high >= bound:
        bad = ((flat < 0) | (flat >= bound)).nonzero()[0]
        where_ = ",".join(str(int(i)) for i in bad.tolist())
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: indices[{where_}] = {int(flat[tuple(bad.tolist())])} is not in [0, {bound}).",
        )


# ----------------------------------------------------------------------------- shapes


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Any:
    """Reshapes a tensor; one dimension of `shape` may be -1 (inferred).

    Returns:
        A tensor with the same values as `tensor` and shape `shape`.
    """
    x = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    dims = (
        shape
        if type(shape) is tuple or type(shape) is list
        else _int_list(shape, "reshape", "shape")
    )
    if isinstance(x, np.ndarray):
        return _strings(reshape, x, dims)
    try:
        return x.reshape(dims)
    except (RuntimeError, TypeError):
        pass
    dims = _int_list(dims, "reshape", "shape")
    if -1 <= min(dims, default=0) and dims.count(-1) <= 1:
        try:
            return x.reshape(dims)
        except RuntimeError:
            pass
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(
            None,
            None,
            f"reshape: only one input size may be -1, not both {unknown[0]} and {unknown[1]} "
            f"(shape {dims}).",
        )
    if any(d < -1 for d in dims):
        raise InvalidArgumentError(
            None, None, f"reshape: size {min(dims)} in shape {dims} is negative."
        )
    known = math.prod(d for d in dims if d != -1)
    need = f"a multiple of {known}" if unknown else str(known)
    raise InvalidArgumentError(
        None,
        None,
        f"reshape: input to reshape is a tensor of shape {_shape(x)} with {x.numel()} values, but "
        f"the requested shape {dims} has {need} values.",
    )


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str = "transpose") -> Any:
    """Permutes the dimensions of `a` by `perm` (default: reversed, so a matrix is transposed).

    Returns:
        A transposed tensor (complex values conjugated when `conjugate`).
    """
    x = a if isinstance(a, Tensor) else convert_to_tensor(a)
    if isinstance(x, np.ndarray):
        return _strings(transpose, x, perm)
    rank = x.dim()
    if perm is None:
        out = x.permute(_REVERSED[rank] if rank < 8 else tuple(range(rank - 1, -1, -1)))
    else:
        perm = _int_list(perm, "transpose", "perm")
        if len(perm) != rank:
            raise InvalidArgumentError(
                None,
                None,
                f"transpose: `perm` {perm} has {len(perm)} entries but the input of shape "
                f"{_shape(x)} has rank {rank}.",
            )
        if sorted(p % rank if rank else p for p in perm) != list(range(rank)):
            raise InvalidArgumentError(
                None, None, f"transpose: `perm` {perm} is not a permutation of 0..{rank - 1}."
            )
        out = x.permute(perm)
    return out.conj().resolve_conj() if conjugate and out.is_complex() else out


def _tensor_list(values: Any, op: str) -> list[Any]:
    if isinstance(values, (Tensor, np.ndarray)) or not isinstance(values, (list, tuple)):
        values = [values]
    first = next((v for v in values if isinstance(v, Tensor)), None)
    if first is None:
        out = [convert_to_tensor(v) for v in values]
        first = next((v for v in out if isinstance(v, Tensor)), None)
        if first is None:
            return out
    dtype = first.dtype
    tensors = []
    for i, v in enumerate(values):
        t = v if isinstance(v, Tensor) else _like_or_strings(v, dtype)
        if isinstance(t, np.ndarray):
            raise TypeError(
                f"{op}: values[{i}] holds strings but values[0] is {dtype_name(dtype)}."
            )
        if t.dtype is not dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: values[{i}] has dtype {dtype_name(t.dtype)} but the other values are "
                f"{dtype_name(dtype)}; TensorFlow does not promote dtypes (use tf.cast).",
            )
        tensors.append(t)
    return tensors


def _like_or_strings(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, (np.ndarray, np.generic)):
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype=dtype)


def concat(values: Any, axis: Any, name: str = "concat") -> Any:
    """Concatenates tensors along dimension `axis`; all other dimensions must match.

    Returns:
        A tensor resulting from the concatenation of the input tensors.
    """
    if type(values) is list or type(values) is tuple:
        if len(values) > 1 and isinstance(values[0], Tensor) and type(axis) is int:
            dtype = values[0].dtype
            for v in values:
                if not isinstance(v, Tensor) or v.dtype is not dtype:
                    break
            else:
                if values[0].dim():
                    try:
                        return torch.cat(values, axis)
                    except (RuntimeError, IndexError):
                        pass
    tensors = _tensor_list(values, "concat")
    if len(tensors) == 1:
        return tensors[0]
    first = tensors[0]
    if isinstance(first, np.ndarray):
        return _strings_many(concat, tensors, axis)
    rank = first.dim()
    if rank == 0:
        raise InvalidArgumentError(
            None, None, "concat: can't concatenate scalars (use tf.stack instead)."
        )
    axis = normalize_axis(axis, rank, "concat")
    try:
        return torch.cat(tensors, dim=axis)
    except RuntimeError:
        pass
    for i, t in enumerate(tensors[1:], 1):
        if t.dim() != rank or any(
            a != b for d, (a, b) in enumerate(zip(t.shape, first.shape)) if d != axis
        ):
            raise shapes_error(
                "concat",
                first.shape,
                t.shape,
                f"values[0] and values[{i}] must match in every dimension but {axis}.",
            )
    raise InvalidArgumentError(None, None, "concat: the tensors are on different devices.")


def stack(values: Any, axis: int = 0, name: str = "stack") -> Any:
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along a new `axis`.

    Returns:
        A stacked tensor with the same dtype as `values`.
    """
    if type(values) is list or type(values) is tuple:
        if values and isinstance(values[0], Tensor) and type(axis) is int:
            dtype = values[0].dtype
            for v in values:
                if not isinstance(v, Tensor) or v.dtype is not dtype:
                    break
            else:
                try:
                    return torch.stack(values, axis)
                except (RuntimeError, IndexError):
                    pass
    tensors = _tensor_list(values, "stack")
    first = tensors[0] if tensors else None
    if first is None:
        raise ValueError("stack: `values` must not be empty.")
    if isinstance(first, np.ndarray):
        return _strings_many(stack, tensors, axis)
    rank = first.dim()
    axis = _int(axis, "stack", "axis")
    if not -rank - 1 <= axis <= rank:
        raise InvalidArgumentError(
            None,
            None,
            f"stack: axis {axis} is out of range for rank-{rank} values (expected in "
            f"[{-rank - 1}, {rank + 1})).",
        )
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != first.shape:
            raise shapes_error(
                "stack",
                first.shape,
                t.shape,
                f"Shapes of all inputs must match: values[0] and values[{i}] differ.",
            )
    return torch.stack(tensors, dim=axis)


def unstack(value: Any, num: int | None = None, axis: int = 0, name: str = "unstack") -> list[Any]:
    """Unpacks the given dimension of a rank-R tensor into rank-(R-1) tensors.

    Returns:
        The list of tensors unstacked from `value`.
    """
    x = value if isinstance(value, Tensor) else convert_to_tensor(value)
    if isinstance(x, np.ndarray):
        return _strings(unstack, x, num, axis)
    if x.dim() == 0:
        raise ValueError("unstack: cannot unstack a scalar (rank 0) tensor.")
    axis = normalize_axis(axis, x.dim(), "unstack")
    if num is not None and num != x.shape[axis]:
        raise InvalidArgumentError(
            None,
            None,
            f"unstack: input shape axis {axis} must equal num={num}, got shape {_shape(x)}.",
        )
    return list(torch.unbind(x, dim=axis))


def split(
    value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None, name: str = "split"
) -> list[Any]:
    """Splits a tensor along `axis` into `num_or_size_splits` equal parts, or parts of the given
    sizes (one size may be -1, inferred).

    Returns:
        A list of tensors.
    """
    x = value if isinstance(value, Tensor) else convert_to_tensor(value)
    if isinstance(x, np.ndarray):
        return _strings(split, x, num_or_size_splits, axis, num)
    axis = normalize_axis(axis, x.dim(), "split")
    size = x.shape[axis]
    is_count = isinstance(num_or_size_splits, int) or (
        isinstance(num_or_size_splits, (Tensor, np.ndarray, np.generic))
        and np.ndim(num_or_size_splits) == 0
    )
    if is_count:
        n = _int(num_or_size_splits, "split", "num_or_size_splits")
        if n <= 0 or size % n:
            raise InvalidArgumentError(
                None,
                None,
                f"split: number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {size}) and num_split {n} (input shape {_shape(x)}).",
            )
        return list(torch.split(x, size // n, dim=axis))
    sizes = _int_list(num_or_size_splits, "split", "num_or_size_splits")
    if num is not None and num != len(sizes):
        raise ValueError(f"split: num={num} does not match the {len(sizes)} sizes {sizes}.")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(
            None, None, f"split: there can only be one -1 in the sizes {sizes}."
        )
    known = sum(s for s in sizes if s != -1)
    if unknown:
        if known > size:
            raise InvalidArgumentError(
                None,
                None,
                f"split: sizes {sizes} need more than the {size} entries of axis {axis} "
                f"(input shape {_shape(x)}).",
            )
        sizes[unknown[0]] = size - known
    if sum(sizes) != size or any(s < 0 for s in sizes):
        raise InvalidArgumentError(
            None,
            None,
            f"split: sizes {sizes} must be non-negative and sum to the size {size} of axis {axis} "
            f"(input shape {_shape(x)}).",
        )
    return list(torch.split(x, sizes, dim=axis))


def squeeze(input: Any, axis: Any = None, name: str | None = None) -> Any:
    """Removes dimensions of size 1 (all of them, or those listed in `axis`).

    Returns:
        A tensor of the same values with the size-1 dimensions removed.
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if isinstance(x, np.ndarray):
        return _strings(squeeze, x, axis)
    if axis is None:
        return x.squeeze()
    axes = normalize_axis(axis, x.dim(), "squeeze")
    axes = axes if isinstance(axes, tuple) else (axes,)
    if not axes:  # TF: an empty axis list squeezes every size-1 dimension
        return x.squeeze()
    for a in axes:
        if x.shape[a] != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"squeeze: can not squeeze dim[{a}], expected a dimension of 1, got {x.shape[a]} "
                f"(input shape {_shape(x)}).",
            )
    return x.squeeze(axes)


def expand_dims(input: Any, axis: Any, name: str | None = None) -> Any:
    """Inserts a dimension of size 1 at index `axis` (-1 appends one).

    Returns:
        A tensor with the same data as `input`, with an additional dimension.
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if isinstance(x, np.ndarray):
        return _strings(expand_dims, x, axis)
    axis = _int(axis, "expand_dims", "axis") if not isinstance(axis, int) else axis
    rank = x.dim()
    if not -rank - 1 <= axis <= rank:
        raise InvalidArgumentError(
            None,
            None,
            f"expand_dims: tried to expand dim index {axis} for a tensor of shape {_shape(x)} "
            f"(expected in [{-rank - 1}, {rank}]).",
        )
    return x.unsqueeze(axis)


def tile(input: Any, multiples: Any, name: str | None = None) -> Any:
    """Constructs a tensor by tiling `input` `multiples[i]` times along dimension i.

    Returns:
        A tensor of shape `input.shape * multiples`.
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if isinstance(x, np.ndarray):
        return _strings(tile, x, multiples)
    reps = _int_list(multiples, "tile", "multiples")
    if len(reps) != x.dim():
        raise InvalidArgumentError(
            None,
            None,
            f"tile: expected `multiples` to be a vector of length {x.dim()} (the rank of the input "
            f"of shape {_shape(x)}) but got length {len(reps)}: {reps}.",
        )
    if any(r < 0 for r in reps):
        raise InvalidArgumentError(
            None, None, f"tile: `multiples` must be non-negative, got {reps}."
        )
    return x.repeat(reps) if reps else x.clone()


def repeat(input: Any, repeats: Any, axis: int | None = None, name: str | None = None) -> Any:
    """Repeats each element of `input` `repeats` times along `axis` (the flattened input when None).

    Returns:
        A tensor with the same dtype as `input`.
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if isinstance(x, np.ndarray):
        return _strings(repeat, x, repeats, axis)
    if axis is None:
        x, axis = x.reshape(-1), 0
    else:
        axis = normalize_axis(axis, x.dim(), "repeat")
    if isinstance(repeats, int):
        if repeats < 0:
            raise InvalidArgumentError(
                None, None, f"repeat: `repeats` must be non-negative, got {repeats}."
            )
        return torch.repeat_interleave(x, repeats, dim=axis)
    reps = _index_tensor(repeats, "repeat", "repeats").to(device=x.device, dtype=torch.int64)
    if reps.dim() > 1:
        raise InvalidArgumentError(
            None, None, f"repeat: `repeats` must be a scalar or a vector, got shape {_shape(reps)}."
        )
    reps = reps.reshape(-1)
    if reps.numel() not in (1, x.shape[axis]):
        raise shapes_error(
            "repeat",
            [x.shape[axis]],
            [reps.numel()],
            f"`repeats` needs one entry per element of axis {axis} of the input of shape "
            f"{_shape(x)}.",
        )
    if reps.numel() and reps.min() < 0:
        raise InvalidArgumentError(
            None, None, f"repeat: `repeats` must be non-negative, got {reps.tolist()}."
        )
    if reps.numel() == 1:
        return torch.repeat_interleave(x, int(reps), dim=axis)
    return torch.repeat_interleave(x, reps, dim=axis)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Any:
    """Broadcasts `input` to the compatible `shape` (numpy's broadcasting rules).

    Returns:
        A tensor of shape `shape`.
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    dims = _int_list(shape, "broadcast_to", "shape")
    if isinstance(x, np.ndarray):
        return _strings(broadcast_to, x, dims)
    try:
        return torch.broadcast_to(x, dims)
    except RuntimeError:
        raise shapes_error(
            "broadcast_to", x.shape, dims, "The input cannot be broadcast to that shape."
        ) from None


def meshgrid(*args: Any, **kwargs: Any) -> list[Any]:
    """Broadcasts 1-D coordinate tensors into N-D grids (`indexing='xy'` (default) or `'ij'`).

    Returns:
        A list of N tensors of rank N.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword arguments {sorted(kwargs)}.")
    if indexing not in ("xy", "ij"):
        raise ValueError(
            f"meshgrid: argument `indexing` must be either 'xy' or 'ij', got {indexing!r}."
        )
    if not args:
        return []
    tensors = [t.reshape(-1) for t in _tensor_list(list(args), "meshgrid")]
    return list(torch.meshgrid(*tensors, indexing=indexing))


# ----------------------------------------------------------------------------- indexing


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    axis: Any = None,
    batch_dims: int = 0,
    name: str | None = None,
) -> Any:
    """Gathers slices from `params` along `axis` according to `indices` (with `batch_dims`
    leading batch dimensions shared by `params` and `indices`).

    Returns:
        A tensor of shape
        `params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]`.
    """
    x = params if isinstance(params, Tensor) else convert_to_tensor(params)
    if isinstance(x, np.ndarray):
        return _strings(gather, x, indices, None, axis, batch_dims)
    idx = _index_tensor(indices, "gather")
    if batch_dims == 0 and (axis is None or type(axis) is int) and x.device == idx.device:
        ax = 0 if axis is None else axis + x.dim() if axis < 0 else axis
        if 0 <= ax < x.dim() and x.device.type == "cpu":
            flat = idx if idx.dim() == 1 else idx.reshape(-1)
            if flat.dtype is not torch.int64 and flat.dtype is not torch.int32:
                flat = flat.long()
            try:
                out = x.index_select(ax, flat)
            except IndexError:
                _check_indices(idx, x.shape[ax], "gather")
                raise
            if idx.dim() == 1:
                return out
            return out.reshape(x.shape[:ax] + idx.shape + x.shape[ax + 1 :])
    if idx.device != x.device:
        idx = idx.to(x.device)
    rank = x.dim()
    batch_dims = _int(batch_dims, "gather", "batch_dims")
    if batch_dims < 0:
        batch_dims += idx.dim()
    axis = batch_dims if axis is None else _int(axis, "gather", "axis")
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise InvalidArgumentError(
            None, None, f"gather: axis {axis} is out of range for params of shape {_shape(x)}."
        )
    if not 0 <= batch_dims <= idx.dim() or batch_dims > axis:
        raise InvalidArgumentError(
            None,
            None,
            f"gather: batch_dims ({batch_dims}) must be in [0, rank(indices)={idx.dim()}] and less "
            f"than or equal to axis ({axis}).",
        )
    if tuple(x.shape[:batch_dims]) != tuple(idx.shape[:batch_dims]):
        raise shapes_error(
            "gather",
            x.shape,
            idx.shape,
            f"The first batch_dims={batch_dims} dimensions of params and indices must be equal.",
        )
    # off the CPU an out-of-range index is a device-side assert: check first (TF's CPU error)
    _check_indices(idx, x.shape[axis], "gather")
    if batch_dims == 0:
        out = x.index_select(axis, idx.reshape(-1).long())
        return out.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1 :])
    batch = x.shape[:batch_dims]
    b = math.prod(batch)
    xb = x.reshape((b,) + x.shape[batch_dims:])
    ib = idx.reshape((b,) + idx.shape[batch_dims:])
    a = axis - batch_dims + 1  # the gathered axis in xb
    moved = xb.movedim(a, 1)  # [B, P_axis, pre..., post...]
    rows = torch.arange(b, device=x.device).reshape((b,) + (1,) * (ib.dim() - 1))
    picked = moved[rows, ib.long()]  # [B, i..., pre..., post...]
    n_i, n_pre = ib.dim() - 1, a - 1
    order = [0] + list(range(1 + n_i, 1 + n_i + n_pre)) + list(range(1, 1 + n_i))
    order += list(range(1 + n_i + n_pre, picked.dim()))
    out = picked.permute(order)
    return out.reshape(
        batch + x.shape[batch_dims:axis] + idx.shape[batch_dims:] + x.shape[axis + 1 :]
    )


def _linear_nd(
    idx: Tensor, dims: Sequence[int], op: str, shape: Sequence[int], what: str
) -> Tensor:
    """Flat positions of the K-vectors in `idx[..., K]` within a tensor of shape `dims` (TF's
    CPU range check first: TF does not wrap negative indices)."""
    k = idx.shape[-1]
    if idx.numel():
        bounds = torch.tensor(list(dims), device=idx.device, dtype=idx.dtype)
        bad = ((idx < 0) | (idx >= bounds)).any(-1)
        if bool(bad.any()):
            first = bad.reshape(-1).nonzero()[0, 0]
            vec = idx.reshape(-1, k)[first].tolist()
            pos = np.unravel_index(int(first), tuple(idx.shape[:-1])) if idx.dim() > 1 else ()
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: indices[{','.join(str(int(p)) for p in pos)}] = {vec} does not index into "
                f"{what} shape {list(shape)}.",
            )
    strides = [math.prod(dims[i + 1 :]) for i in range(k)]
    if k == 0:
        return torch.zeros(idx.shape[:-1], dtype=torch.int64, device=idx.device)
    return (idx.long() * torch.tensor(strides, device=idx.device)).sum(-1)


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None) -> Any:
    """Gathers slices from `params` into a tensor shaped `indices.shape[:-1] + params.shape[K:]`,
    each innermost vector of `indices` (length K) indexing the first K dimensions (after
    `batch_dims` batch dimensions).

    Returns:
        A tensor with the same dtype as `params`.
    """
    x = params if isinstance(params, Tensor) else convert_to_tensor(params)
    if isinstance(x, np.ndarray):
        return _strings(gather_nd, x, indices, batch_dims)
    idx = _index_tensor(indices, "gather_nd")
    if idx.device != x.device:
        idx = idx.to(x.device)
    bd = _int(batch_dims, "gather_nd", "batch_dims")
    if idx.dim() < 1:
        raise InvalidArgumentError(None, None, "gather_nd: `indices` must be at least a vector.")
    k = idx.shape[-1]
    if bd < 0 or bd >= idx.dim() or k > x.dim() - bd:
        raise InvalidArgumentError(
            None,
            None,
            f"gather_nd: index innermost dimension length must be <= params rank - batch_dims; saw "
            f"indices shape {_shape(idx)} for params shape {_shape(x)} with batch_dims={bd}.",
        )
    if tuple(x.shape[:bd]) != tuple(idx.shape[:bd]):
        raise shapes_error(
            "gather_nd",
            x.shape,
            idx.shape,
            f"The first batch_dims={bd} dimensions of params and indices must be equal.",
        )
    batch = math.prod(x.shape[:bd])
    dims = list(x.shape[bd : bd + k])
    inner = math.prod(dims)
    linear = _linear_nd(idx, dims, "gather_nd", x.shape, "param")
    if bd:
        per_batch = math.prod(idx.shape[bd:-1])
        offsets = torch.arange(batch, device=x.device).repeat_interleave(per_batch) * inner
        linear = linear.reshape(-1) + offsets
    flat = x.reshape((batch * inner,) + x.shape[bd + k :])
    out = flat.index_select(0, linear.reshape(-1))
    return out.reshape(idx.shape[:-1] + x.shape[bd + k :])


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Any:
    """Keeps the entries of `tensor` where `mask` (matching `tensor.shape[axis:axis + mask.ndim]`)
    is True, flattening the masked dimensions into one.

    Returns:
        A tensor of rank `tensor.ndim - mask.ndim + 1`.
    """
    x = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    if isinstance(x, np.ndarray):
        return _strings(boolean_mask, x, mask, axis)
    m = mask if isinstance(mask, Tensor) else convert_to_tensor(mask)
    if isinstance(m, np.ndarray):
        raise TypeError("boolean_mask: `mask` must be a bool tensor, got strings.")
    if m.dim() == 0:
        raise ValueError("boolean_mask: mask cannot be scalar.")
    axis = 0 if axis is None else normalize_axis(axis, x.dim(), "boolean_mask")
    k = m.dim()
    if tuple(x.shape[axis : axis + k]) != tuple(m.shape):
        raise shapes_error(
            "boolean_mask",
            x.shape[axis : axis + k],
            m.shape,
            f"The mask's shape must match dimensions {axis}..{axis + k - 1} of the tensor of shape "
            f"{_shape(x)}.",
        )
    if m.dtype is not torch.bool:
        m = m != 0
    if m.device != x.device:
        m = m.to(x.device)
    flat = x.reshape(x.shape[:axis] + (-1,) + x.shape[axis + k :])
    return flat.index_select(axis, m.reshape(-1).nonzero().reshape(-1))


def _is_strings(value: Any) -> bool:
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "OUS"
    return isinstance(value, list) and np.asarray(value).dtype.kind in "OUS"


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Any:
    """With `x` and `y`: picks `x` where `condition` is True and `y` elsewhere (all three
    broadcast). With `condition` alone: the coordinates of its true (non-zero) elements.

    Returns:
        The selected tensor, or an int64 tensor of shape `[num_true, rank(condition)]`.
    """
    if x is None and y is None:
        c = _numeric(condition, "where", "condition")
        return torch.nonzero(c)
    if x is None or y is None:
        raise ValueError("where: x and y must both be non-None or both be None.")
    c = condition if isinstance(condition, Tensor) else convert_to_tensor(condition)
    if isinstance(c, np.ndarray) or c.dtype is not torch.bool:
        kind = "strings" if isinstance(c, np.ndarray) else dtype_name(c.dtype)
        raise InvalidArgumentError(
            None, None, f"where: `condition` must be a bool tensor, got {kind}."
        )
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        if _is_strings(x) or _is_strings(y):
            return np.where(
                c.cpu().numpy(), np.asarray(x, dtype=object), np.asarray(y, dtype=object)
            )
        if isinstance(x, Tensor) and isinstance(y, (list, tuple)):  # a list takes the other's dtype
            y = _like(y, x.dtype, "where", "y")
        elif isinstance(y, Tensor) and isinstance(x, (list, tuple)):
            x = _like(x, y.dtype, "where", "x")
        x, y = binary_operands(x, y, "where")
    elif x.dtype is not y.dtype:
        raise InvalidArgumentError(
            None,
            None,
            f"where: x has dtype {dtype_name(x.dtype)} and y has dtype {dtype_name(y.dtype)}; "
            "they must match (use tf.cast).",
        )
    try:
        return torch.where(c, x, y)
    except RuntimeError:
        xs = list(x.shape) if isinstance(x, Tensor) else []
        ys = list(y.shape) if isinstance(y, Tensor) else []
        raise InvalidArgumentError(
            None,
            None,
            f"where: condition {_shape(c)}, then {xs}, and else {ys} must be broadcastable.",
        ) from None


def one_hot(
    indices: Any,
    depth: Any,
    on_value: Any = None,
    off_value: Any = None,
    axis: Any = None,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """A one-hot tensor: `on_value` where the position along the new `axis` equals the index,
    `off_value` elsewhere (an index of -1 or outside [0, depth) gives an all-off row).

    Returns:
        A tensor of rank `rank(indices) + 1`, of `dtype` (else the dtype of `on_value`/`off_value`,
        else float32).
    """
    idx = _index_tensor(indices, "one_hot")
    depth = _int(depth, "one_hot", "depth")
    if depth < 0:
        raise InvalidArgumentError(None, None, f"one_hot: depth must be non-negative, got {depth}.")
    on_t = on_value if isinstance(on_value, (Tensor, np.ndarray, np.generic)) else None
    off_t = off_value if isinstance(off_value, (Tensor, np.ndarray, np.generic)) else None
    if on_t is not None:
        on_t = convert_to_tensor(on_t)
    if off_t is not None:
        off_t = convert_to_tensor(off_t)
    if on_t is not None and off_t is not None and on_t.dtype is not off_t.dtype:
        raise TypeError(
            f"one_hot: dtype {dtype_name(on_t.dtype)} of on_value does not match dtype "
            f"{dtype_name(off_t.dtype)} of off_value."
        )
    if dtype is not None:
        out_dtype = _dtypes.as_dtype(dtype)
        for label, t in (("on_value", on_t), ("off_value", off_t)):
            if t is not None and t.dtype is not out_dtype:
                raise TypeError(
                    f"one_hot: dtype {dtype_name(t.dtype)} of {label} does not match the dtype "
                    f"argument {dtype_name(out_dtype)}."
                )
    elif on_t is not None or off_t is not None:
        out_dtype = (on_t if on_t is not None else off_t).dtype
    elif on_value is not None:
        out_dtype = convert_to_tensor(on_value).dtype
    elif off_value is not None:
        out_dtype = convert_to_tensor(off_value).dtype
    else:
        out_dtype = torch.float32
    rank = idx.dim()
    axis = -1 if axis is None else _int(axis, "one_hot", "axis")
    if axis != -1 and not 0 <= axis <= rank:
        raise InvalidArgumentError(
            None,
            None,
            f"one_hot: expected axis to be -1 or between [0, {rank + 1}), but received {axis}.",
        )
    axis = rank if axis == -1 else axis
    view = [1] * (rank + 1)
    view[axis] = depth
    hot = idx.unsqueeze(axis) == torch.arange(depth, device=idx.device, dtype=idx.dtype).reshape(
        view
    )
    if on_value is None and off_value is None:
        return hot.to(out_dtype)
    on = _fill_value(on_t if on_t is not None else on_value, 1, out_dtype, idx.device, "on_value")
    off = _fill_value(
        off_t if off_t is not None else off_value, 0, out_dtype, idx.device, "off_value"
    )
    return torch.where(hot, on, off)


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


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """Converts flat indices into coordinates in an array of shape `dims`.

    Returns:
        A tensor of shape `[len(dims)] + indices.shape`, of the dtype of `indices`.
    """
    idx = _index_tensor(indices, "unravel_index")
    shape = _int_list(dims, "unravel_index", "dims")
    total = math.prod(shape)
    if idx.numel() and (idx.min() < 0 or idx.max() >= total):
        raise InvalidArgumentError(
            None,
            None,
            f"unravel_index: an index of {idx.tolist()} is out of bounds for dims {shape}.",
        )
    rest, coords = idx, []
    for size in reversed(shape):
        coords.append(torch.remainder(rest, size))
        rest = torch.div(rest, size, rounding_mode="floor")
    return torch.stack(coords[::-1]) if coords else idx.new_zeros((0,) + tuple(idx.shape))


# ----------------------------------------------------------------------------- sorting


def _direction(direction: str, op: str) -> bool:
    if direction == "ASCENDING":
        return False
    if direction == "DESCENDING":
        return True
    raise ValueError(
        f"{op}: argument `direction` should be one of ASCENDING, DESCENDING. Received: "
        f"direction={direction}"
    )


def sort(
    values: Any, axis: int = -1, direction: str = "ASCENDING", name: str | None = None
) -> Tensor:
    """Sorts `values` along `axis` in `direction` ('ASCENDING' or 'DESCENDING').

    Returns:
        A tensor of the same dtype and shape, sorted along `axis`.
    """
    x = _numeric(values, "sort", "values")
    descending = _direction(direction, "sort")
    axis = normalize_axis(axis, x.dim(), "sort")
    return torch.sort(x, dim=axis, descending=descending, stable=True).values


def argsort(
    values: Any,
    axis: int = -1,
    direction: str = "ASCENDING",
    stable: bool = False,
    name: str | None = None,
) -> Tensor:
    """Returns the indices that sort `values` along `axis` (always stable: ties keep their order).

    Returns:
        An int32 tensor of the same shape as `values`.
    """
    x = _numeric(values, "argsort", "values")
    descending = _direction(direction, "argsort")
    axis = normalize_axis(axis, x.dim(), "argsort")
    return torch.sort(x, dim=axis, descending=descending, stable=True).indices.to(torch.int32)


def searchsorted(
    sorted_sequence: Any,
    values: Any,
    side: str = "left",
    out_type: Any = torch.int32,
    name: str | None = None,
) -> Tensor:
    """For each value, the index in `sorted_sequence` (sorted along its innermost axis) where it
    would be inserted: before equal entries (`side='left'`) or after them (`'right'`).

    Returns:
        A tensor of `out_type` (int32 by default) of the shape of `values`.
    """
    if side not in ("left", "right"):
        raise ValueError(
            "searchsorted: argument `side` must be either 'right' or 'left'. Received: "
            f"`side` = {side!r}."
        )
    seq = _numeric(sorted_sequence, "searchsorted", "sorted_sequence")
    vals = _like(values, seq.dtype, "searchsorted", "values")
    out_dtype = _dtypes.as_dtype(out_type)
    try:
        out = torch.searchsorted(
            seq.contiguous(),
            vals.contiguous(),
            right=side == "right",
            out_int32=out_dtype is torch.int32,
        )
    except RuntimeError:
        raise shapes_error(
            "searchsorted",
            seq.shape,
            vals.shape,
            "sorted_sequence and values must share their leading (batch) dimensions.",
        ) from None
    return out if out.dtype is out_dtype else out.to(out_dtype)


def _unique(x: Any, out_idx: Any, op: str) -> tuple[Any, Tensor, Tensor]:
    idx_dtype = _dtypes.as_dtype(out_idx)
    if idx_dtype not in (torch.int32, torch.int64):
        raise TypeError(f"{op}: `out_idx` must be int32 or int64, got {out_idx!r}.")
    t = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if t.ndim != 1:
        raise InvalidArgumentError(
            None, None, f"{op}: unique expects a 1D vector, got shape {list(t.shape)}."
        )
    if isinstance(t, np.ndarray):
        values, first, inverse, counts = np.unique(
            t, return_index=True, return_inverse=True, return_counts=True
        )
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return (
            values[order],
            torch.from_numpy(rank[inverse.reshape(-1)]).to(idx_dtype),
            torch.from_numpy(counts[order]).to(idx_dtype),
        )
    values, inverse, counts = torch.unique(t, sorted=True, return_inverse=True, return_counts=True)
    n = t.numel()
    first = torch.full((values.numel(),), n, dtype=torch.int64, device=t.device)
    first = first.scatter_reduce(0, inverse, torch.arange(n, device=t.device), "amin")
    order = torch.argsort(first)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.numel(), device=t.device)
    return values[order], rank[inverse].to(idx_dtype), counts[order].to(idx_dtype)


def unique(x: Any, out_idx: Any = torch.int32, name: str | None = None) -> Unique:
    """Finds the unique elements of a 1-D tensor, in order of first occurrence.

    Returns:
        `Unique(y, idx)`: the unique values and, for each element of `x`, the index of its value
        in `y` (`out_idx` dtype).
    """
    y, idx, _ = _unique(x, out_idx, "unique")
    return Unique(y, idx)


def unique_with_counts(
    x: Any, out_idx: Any = torch.int32, name: str | None = None
) -> UniqueWithCounts:
    """Finds the unique elements of a 1-D tensor in order of first occurrence, with their counts.

    Returns:
        `UniqueWithCounts(y, idx, count)`.
    """
    return UniqueWithCounts(*_unique(x, out_idx, "unique_with_counts"))


# ----------------------------------------------------------------------------- clipping


def clip_by_value(
    t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None
) -> Tensor:
    """Clips values to `[clip_value_min, clip_value_max]` (TF's order: the min is applied last,
    so `min > max` gives `min`). The bounds broadcast to the shape of `t`.

    Returns:
        A clipped tensor of the same type and shape as `t`.
    """
    lo = clip_value_min
    hi = clip_value_max
    if isinstance(t, Tensor) and type(lo) is type(hi) and (type(lo) is float or type(lo) is int):
        if lo <= hi and (type(lo) is int or t.is_floating_point()) and t.dtype is not torch.bool:
            return torch.clamp(t, lo, hi)
    x = _numeric(t, "clip_by_value", "t")
    _, hi = binary_operands(x, hi, "clip_by_value")
    _, lo = binary_operands(x, lo, "clip_by_value")
    for bound in (lo, hi):
        if isinstance(bound, Tensor) and bound.dim():
            try:
                ok = torch.broadcast_shapes(x.shape, bound.shape) == x.shape
            except RuntimeError:
                ok = False
            if not ok:
                raise shapes_error(
                    "clip_by_value",
                    x.shape,
                    bound.shape,
                    "The clip bounds must broadcast to the shape of t.",
                )
    hi_t = hi if isinstance(hi, Tensor) else torch.tensor(hi, dtype=x.dtype, device=x.device)
    lo_t = lo if isinstance(lo, Tensor) else torch.tensor(lo, dtype=x.dtype, device=x.device)
    return torch.maximum(torch.minimum(x, hi_t), lo_t)


def _float_tensor(t: Any, op: str, arg: str) -> Tensor:
    x = _numeric(t, op, arg)
    if not (x.is_floating_point() or x.is_complex()):
        raise TypeError(f"{op}: `{arg}` must be a floating tensor, got {dtype_name(x.dtype)}.")
    return x


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """Rescales `t` so that its L2 norm (over `axes`, default all) is at most `clip_norm`:
    `t * clip_norm / max(l2norm(t), clip_norm)`.

    Returns:
        A clipped tensor of the same shape and dtype.
    """
    x = _float_tensor(t, "clip_by_norm", "t")
    axes = normalize_axis(axes, x.dim(), "clip_by_norm")
    sq = (x * x.conj()).real if x.is_complex() else x * x
    l2sum = sq.sum(dim=axes, keepdim=True) if axes is not None else sq.sum().reshape([1] * x.dim())
    pos = l2sum > 0
    l2norm = torch.where(pos, torch.sqrt(torch.where(pos, l2sum, torch.ones_like(l2sum))), l2sum)
    _, c = binary_operands(x, clip_norm, "clip_by_norm")
    c = c if isinstance(c, Tensor) else torch.tensor(c, dtype=l2norm.dtype, device=x.device)
    return x * c / torch.maximum(l2norm, c.real if c.is_complex() else c)


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """The global norm of a list of tensors: `sqrt(sum(l2norm(t) ** 2 for t in t_list))`
    (None entries are ignored).

    Returns:
        A scalar tensor of the tensors' dtype.
    """
    if isinstance(t_list, (Tensor, np.ndarray)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    tensors = [_float_tensor(t, "global_norm", "t_list") for t in t_list if t is not None]
    if not tensors:
        return torch.tensor(0.0)
    dtype = tensors[0].dtype
    sums = []
    for i, t in enumerate(tensors):
        if t.dtype is not dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"global_norm: t_list[{i}] has dtype {dtype_name(t.dtype)} but the others are "
                f"{dtype_name(dtype)}.",
            )
        sums.append(torch.sum((t * t.conj()).real if t.is_complex() else t * t))
    return torch.sqrt(torch.stack([s.to(tensors[0].device) for s in sums]).sum())


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Any], Tensor]:
    """Scales the tensors of `t_list` by `clip_norm / max(global_norm, clip_norm)` (None entries
    stay None; an infinite or NaN norm gives NaN values, as TF).

    Returns:
        `(list_clipped, global_norm)`: the clipped tensors and the global norm used.
    """
    if isinstance(t_list, (Tensor, np.ndarray)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    norm = (
        global_norm(t_list)
        if use_norm is None
        else _numeric(use_norm, "clip_by_global_norm", "use_norm")
    )
    if not norm.is_floating_point():
        norm = norm.to(torch.float32)
    c = clip_norm if isinstance(clip_norm, Tensor) else torch.tensor(clip_norm, dtype=norm.dtype)
    c = c.to(device=norm.device, dtype=norm.dtype)
    scale = c * torch.minimum(1.0 / norm, 1.0 / c)
    scale = scale + (norm - norm)  # NaN when the norm is inf or NaN, as TF
    clipped = []
    for t in t_list:
        if t is None:
            clipped.append(None)
            continue
        t = _tensor(t)
        clipped.append(t * scale.to(device=t.device, dtype=t.dtype))
    return clipped, norm


# ----------------------------------------------------------------------------- scatter


def _scatter_parts(
    tensor: Tensor, indices: Any, updates: Any, op: str
) -> tuple[Tensor, Tensor, Tensor]:
    idx = _index_tensor(indices, op)
    if idx.device != tensor.device:
        idx = idx.to(tensor.device)
    upd = _like(updates, tensor.dtype, op, "updates")
    if upd.device != tensor.device:
        upd = upd.to(tensor.device)
    if idx.dim() < 1 or idx.shape[-1] > tensor.dim():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: the innermost dimension of indices (shape {_shape(idx)}) must be at most "
            "the rank "
            f"of the output shape {_shape(tensor)}.",
        )
    k = idx.shape[-1]
    want = tuple(idx.shape[:-1]) + tuple(tensor.shape[k:])
    if tuple(upd.shape) != want:
        raise shapes_error(
            op,
            upd.shape,
            want,
            f"updates must have shape indices.shape[:-1] + output.shape[{k}:] (indices shape "
            f"{_shape(idx)}, output shape {_shape(tensor)}).",
        )
    dims = list(tensor.shape[:k])
    linear = _linear_nd(idx, dims, op, tensor.shape, "the output").reshape(-1)
    flat_upd = upd.reshape((-1,) + tuple(tensor.shape[k:]))
    return linear, flat_upd, tensor.reshape((math.prod(dims),) + tuple(tensor.shape[k:]))


def _scatter(tensor: Any, indices: Any, updates: Any, op: str, how: str) -> Tensor:
    x = _numeric(tensor, op, "tensor")
    linear, upd, flat = _scatter_parts(x, indices, updates, op)
    if how == "update":
        out = flat.index_put((linear,), upd)
    elif how == "add":
        out = flat.index_put((linear,), upd, accumulate=True)
    elif how == "sub":
        out = flat.index_put((linear,), -upd, accumulate=True)
    else:
        index = linear.reshape((-1,) + (1,) * (upd.dim() - 1)).expand_as(upd)
        out = flat.scatter_reduce(0, index, upd, how, include_self=True)
    return out.reshape(x.shape)


def tensor_scatter_nd_update(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with the slices at `indices` (K-vectors) replaced by `updates`.

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_update", "update")


def tensor_scatter_nd_add(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with `updates` added at `indices` (duplicates accumulate).

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_add", "add")


def tensor_scatter_nd_sub(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with `updates` subtracted at `indices` (duplicates accumulate).

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_sub", "sub")


def tensor_scatter_nd_max(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with the element-wise maximum of it and `updates` at `indices`.

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_max", "amax")


def tensor_scatter_nd_min(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with the element-wise minimum of it and `updates` at `indices`.

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_min", "amin")


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Tensor:
    """Scatters `updates` into a new zero tensor of `shape` at `indices` (duplicates are summed).

    Returns:
        A tensor of `shape` with the dtype of `updates`.
    """
    upd = _numeric(updates, "scatter_nd", "updates")
    dims = _int_list(shape, "scatter_nd", "shape")
    zeros = torch.zeros(dims, dtype=upd.dtype, device=upd.device)
    return _scatter(zeros, indices, upd, "scatter_nd", "add")


def sequence_mask(
    lengths: Any, maxlen: Any = None, dtype: Any = torch.bool, name: str | None = None
) -> Tensor:
    """A mask of the first `lengths[i]` positions of each row: `mask[i..., j] = j < lengths[i...]`.

    Returns:
        A tensor of shape `lengths.shape + [maxlen]` (maxlen defaults to `max(lengths)`), of
        `dtype`.
    """
    lens = _numeric(lengths, "sequence_mask", "lengths")
    if lens.is_floating_point():
        lens = lens.long()
    if maxlen is None:
        maxlen = int(lens.max()) if lens.numel() else 0
    else:
        maxlen = _int(maxlen, "sequence_mask", "maxlen")
    maxlen = max(maxlen, 0)
    mask = torch.arange(maxlen, device=lens.device) < lens.unsqueeze(-1)
    out_dtype = _dtypes.as_dtype(dtype)
    return mask if out_dtype is torch.bool else mask.to(out_dtype)
