"""`tf.fingerprint` and `tf.bitcast`: the bytes of tensors, hashed or reinterpreted."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes, _hashing
from torchestimator._ops.convert import convert_to_tensor


def _farmhash(chunks: list[bytes]) -> np.ndarray:
    data = np.frombuffer(b"".join(chunks), dtype=np.uint8)
    lengths = np.array([len(c) for c in chunks], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return _hashing._farmhash64(data, starts, lengths)


def fingerprint(data: Any, method: str = "farmhash64", name: str | None = None) -> torch.Tensor:
    """Fingerprints each row of `data` (its first dimension): uint8 [rows, 8], the little-endian
    bytes of FarmHash Fingerprint64 of the row's bytes; for strings, of the row's strings'
    fingerprints (one string per row: of the string itself), as TF's."""
    if method != "farmhash64":
        raise ValueError(f"Unsupported fingerprint method: {method!r}; TF supports 'farmhash64'.")
    if isinstance(data, torch.Tensor):
        array = data.detach().cpu().numpy()
    else:
        array = np.asarray(data, dtype=object if isinstance(data, (list, tuple)) else None)
    if array.ndim < 1:
        raise ValueError("fingerprint: data must have rank >= 1 (one fingerprint per row).")
    rows = array.shape[0]
    if array.dtype.kind in "OUS":
        flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.reshape(-1).tolist()]
        per_row = len(flat) // rows if rows else 0
        if per_row == 1:
            out = _farmhash(flat) if flat else np.zeros(0, np.uint64)
        else:
            inner = _farmhash(flat).astype("<u8") if flat else np.zeros(0, "<u8")
            out = _farmhash([inner[r * per_row:(r + 1) * per_row].tobytes() for r in range(rows)])
    else:
        raw = np.ascontiguousarray(array).reshape(rows, -1)
        raw = raw.astype(raw.dtype.newbyteorder("<"), copy=False)
        out = _farmhash([raw[r].tobytes() for r in range(rows)]) if rows else np.zeros(0, np.uint64)
    as_bytes = np.frombuffer(np.asarray(out, dtype="<u8").tobytes(), dtype=np.uint8).reshape(rows, 8)
    return torch.from_numpy(as_bytes.copy())


def bitcast(input: Any, type: Any, name: str | None = None) -> torch.Tensor:  # noqa: A002
    """Reinterprets the bytes of `input` as `type`, without copying values: to a narrower type
    the shape gains a last dimension of the size ratio; to a wider one the last dimension (of
    that ratio) is consumed, as TF's."""
    x = convert_to_tensor(input)
    target = _dtypes.as_dtype(type)
    if target is _dtypes.string or not isinstance(target, torch.dtype):
        raise TypeError(f"bitcast: cannot bitcast to {target}.")
    src_size, dst_size = x.element_size(), torch.empty((), dtype=target).element_size()
    x = x.contiguous()
    if src_size == dst_size:
        return x.view(target)
    if src_size > dst_size:
        return x.reshape(*x.shape, 1).view(target).reshape(*x.shape, src_size // dst_size)
    ratio = dst_size // src_size
    if x.ndim == 0 or x.shape[-1] != ratio:
        raise ValueError(f"bitcast: to cast {x.dtype} to the wider {target}, the last dimension of the input "
                         f"must be {ratio}; received shape {tuple(x.shape)}.")
    return x.view(target).reshape(x.shape[:-1])
