"""Flat values of a RaggedTensor: a torch tensor for numbers, a numpy object array for strings.

Helpers that gather, slice, concatenate and convert either kind, and the row-splits checks
every factory runs (their errors name the argument and its values).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._tensor_conversion import convert_to_tensor, on_one_device
from torchestimator.errors import InvalidArgumentError

SPLITS_DTYPES = (torch.int64, torch.int32)


def is_strings(values: Any) -> bool:
    """True for string flat values (a numpy object array)."""
    return isinstance(values, np.ndarray)


def to_flat(values: Any, dtype: Any = None, name: str = "values") -> Any:
    """`values` as a torch tensor, or a numpy object array for strings (cast to `dtype`)."""
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(values, torch.Tensor):
        return values if want is None or want is values.dtype else values.to(want)
    if isinstance(values, np.ndarray) and values.dtype.kind in "OUS":
        return values.astype(object)
    if isinstance(values, np.ndarray) and want is not None and want is not _dtypes.string:
        return torch.from_numpy(np.ascontiguousarray(values)).to(want)
    out = convert_to_tensor(values, want, name=name)
    if isinstance(out, np.ndarray):
        return out.astype(object)
    return out


def splits_dtype(dtype: Any, name: str = "row_splits_dtype") -> torch.dtype:
    """The torch dtype of row partitions: int64 (TF's default) or int32."""
    d = _dtypes.as_dtype(dtype if dtype is not None else torch.int64)
    if d not in SPLITS_DTYPES:
        raise ValueError(f"{name} must be tf.int32 or tf.int64; received {_dtypes.dtype_name(d)}")
    return d


def int_tensor(value: Any, name: str, fn: str, dtype: Any = None) -> torch.Tensor:
    """`value` as a 1-D integer torch tensor (int64 unless `value` is an int32 tensor)."""
    if isinstance(value, torch.Tensor):
        t = value
    else:
        arr = np.asarray(value)
        if arr.size and arr.dtype.kind not in "iu":
            raise TypeError(f"{fn}: {name} must be integers; received dtype {arr.dtype} "
                            f"({arr.tolist()!r:.80})")
        t = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.int64))
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
        raise TypeError(f"{fn}: {name} must be integers; received dtype {t.dtype}")
    if dtype is not None:
        t = t.to(dtype)
    elif t.dtype not in SPLITS_DTYPES:
        t = t.to(torch.int64)
    return t


def nrows_of(values: Any) -> int:
    """The number of rows (first dimension) of flat values or a RaggedTensor."""
    if hasattr(values, "nrows") and not isinstance(values, (torch.Tensor, np.ndarray)):
        return int(values._nrows())
    return int(values.shape[0]) if len(values.shape) else 0


def check_splits(splits: torch.Tensor, nvals: int, fn: str, name: str = "row_splits") -> None:
    """Raises InvalidArgumentError naming `name` and its values unless `splits` starts at 0,
    ascends and ends at `nvals` (the number of values it partitions)."""
    if splits.ndim != 1 or splits.numel() == 0:
        raise ValueError(f"{fn}: {name} must be a 1-D tensor with at least one element; received "
                         f"shape {list(splits.shape)}")
    shown = splits.tolist() if splits.numel() <= 20 else splits[:20].tolist() + ["..."]
    if int(splits[0]) != 0:
        raise InvalidArgumentError(
            f"Arguments to {fn} do not form a valid RaggedTensor: {name}[0] must be 0; received "
            f"{name}={shown}")
    if splits.numel() > 1 and bool((splits[1:] < splits[:-1]).any()):
        raise InvalidArgumentError(
            f"Arguments to {fn} do not form a valid RaggedTensor: {name} must be sorted in "
            f"ascending order (monotonic); received {name}={shown}")
    if int(splits[-1]) != nvals:
        raise InvalidArgumentError(
            f"Arguments to {fn} do not form a valid RaggedTensor: {name}[-1] ({int(splits[-1])}) "
            f"must equal the number of values ({nvals}); received {name}={shown}")


def gather(values: Any, idx: torch.Tensor) -> Any:
    """Rows `idx` of flat values or a RaggedTensor."""
    if isinstance(values, torch.Tensor):
        return values[idx.to(torch.int64)]
    if isinstance(values, np.ndarray):
        return values[idx.numpy()]
    return values._gather_rows(idx)


def concat(parts: list[Any]) -> Any:
    """Flat values (all torch or all strings) concatenated along the first dimension."""
    if parts and isinstance(parts[0], np.ndarray):
        return np.concatenate([np.asarray(p, dtype=object) for p in parts]).astype(object)
    # on the accelerator one part is on (a ragged constant next to a tensor on the GPU)
    return torch.cat(on_one_device(parts))


def ranges(starts: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """The concatenation of `arange(s, s + n)` for each (s, n): int64."""
    lengths = lengths.to(torch.int64)
    total = int(lengths.sum()) if lengths.numel() else 0
    if total == 0:
        return torch.zeros(0, dtype=torch.int64)
    offsets = torch.cumsum(lengths, 0) - lengths
    rep_starts = torch.repeat_interleave(starts.to(torch.int64), lengths)
    rep_offsets = torch.repeat_interleave(offsets, lengths)
    return rep_starts + torch.arange(total, dtype=torch.int64) - rep_offsets


def as_python(values: Any) -> list:
    """Flat values as nested Python lists (strings as bytes, as TF's `to_list`)."""
    if isinstance(values, np.ndarray):
        return [v.encode("utf-8") if isinstance(v, str) else v for v in values.reshape(-1)
                ] if values.ndim == 1 else [as_python(v) for v in values]
    return values.tolist()


def dtype_of(values: Any) -> Any:
    """TF dtype of flat values (`tf.string` for numpy object arrays)."""
    return _dtypes.string if isinstance(values, np.ndarray) else values.dtype


def full(shape: tuple, fill: Any, like: Any) -> Any:
    """A dense array of `shape` filled with `fill`, of the kind and dtype of `like`."""
    if isinstance(like, np.ndarray):
        out = np.empty(shape, dtype=object)
        out[...] = b"" if fill is None else fill
        return out
    return torch.full(shape, 0 if fill is None else fill, dtype=like.dtype, device=like.device)
