"""Shape ops: tf.reshape, transpose, concat, stack, unstack, split, squeeze, expand_dims, tile,
repeat, broadcast_to, meshgrid."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator._ops.array_ops._common import (
    _REVERSED,
    Tensor,
    _index_tensor,
    _int,
    _int_list,
    _shape,
    _strings,
    _strings_many,
)
from torchestimator._ops.convert import (
    convert_to_tensor,
    dtype_name,
    normalize_axis,
    on_one_device,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError

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
    return on_one_device(tensors)


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
