"""tf.strings' hash buckets: to_hash_bucket_fast and to_hash_bucket_strong."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator import _hashing
from torchestimator._ops.string_ops._common import Tensor, _ragged, _strings, _tensor
from torchestimator.errors import InvalidArgumentError


# ---------------------------------------------------------------------------- hashing
def _num_buckets(num_buckets: Any, op: str) -> int:
    if isinstance(num_buckets, builtins.bool) or not isinstance(num_buckets, (int, np.integer)):
        raise TypeError(f"{op}: `num_buckets` must be an integer, got {num_buckets!r}.")
    if num_buckets < 1:
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'num_buckets' of {num_buckets} must be at least "
            "minimum 1"
        )
    return int(num_buckets)


@_ragged
def to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Tensor:
    """Converts each string of `input` to a hash bucket id in [0, num_buckets): FarmHash
    Fingerprint64 of its UTF-8 bytes modulo `num_buckets`, bit-identical to TF's
    `tf.strings.to_hash_bucket_fast`.

    Returns:
        An int64 tensor of the input's shape.
    """
    array = _strings(input, "to_hash_bucket_fast")
    buckets = _hashing.hash_bucket(array, _num_buckets(num_buckets, "to_hash_bucket_fast"))
    return _tensor(np.asarray(buckets, dtype=np.int64).reshape(array.shape), torch.int64)


@_ragged
def to_hash_bucket_strong(input: Any, num_buckets: int, key: Any,
                          name: str | None = None) -> Tensor:
    """Converts each string of `input` to a hash bucket id in [0, num_buckets) with the keyed
    SipHash-2-4 of its UTF-8 bytes, `key` two integers, bit-identical to TF's
    `tf.strings.to_hash_bucket_strong`.

    Returns:
        An int64 tensor of the input's shape.
    """
    array = _strings(input, "to_hash_bucket_strong")
    values = key.tolist() if isinstance(key, (Tensor, np.ndarray)) else key
    if not isinstance(values, (list, tuple)) or builtins.len(values) != 2:
        raise InvalidArgumentError(
            None, None, f"to_hash_bucket_strong: Key must have 2 elements, got {key!r}"
        )
    buckets = _hashing.strong_hash_bucket(
        array, _num_buckets(num_buckets, "to_hash_bucket_strong"), [int(v) for v in values]
    )
    return _tensor(np.asarray(buckets, dtype=np.int64).reshape(array.shape), torch.int64)
