"""`bucket_by_sequence_length`: batches of elements of similar length, padded per bucket.

As TF builds it: an element of length L goes to bucket i when
`boundaries[i-1] <= L < boundaries[i]` (the first bucket starts at the int32
minimum, the last ends at the int32 maximum); each bucket is a `group_by_window`
group whose window is `bucket_batch_sizes[i]` elements, batched with
`padded_batch` (or `batch` with `no_padding`). With `pad_to_bucket_boundary`
the unknown dimensions pad to `boundaries[i] - 1` instead of the longest element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec
from torchestimator.data.batching import _flatten_up_to
from torchestimator.data.dataset import Dataset
from torchestimator.data.grouping import GroupByWindowDataset
from torchestimator.data.mapping import call_on
from torchestimator.data.structure import flat_specs, make_packer, with_flat_specs
from torchestimator.data.validation import as_bool, as_callable, as_int
from torchestimator.errors import InvalidArgumentError

_INT32_MIN, _INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)


def bucket_by_sequence_length(dataset: Dataset, element_length_func: Callable,
                              bucket_boundaries: Any, bucket_batch_sizes: Any,
                              padded_shapes: Any = None, padding_values: Any = None,
                              pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                              drop_remainder: bool = False) -> Dataset:
    """Groups `dataset`'s elements into length buckets and batches each (see module doc)."""
    element_length_func = as_callable("element_length_func", element_length_func)
    boundaries = [as_int("bucket_boundaries", b) for b in list(bucket_boundaries)]
    sizes = [as_int("bucket_batch_sizes", b, 1) for b in list(bucket_batch_sizes)]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(
            "`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
            f"`len(bucket_batch_sizes)={len(sizes)}` and "
            f"`len(bucket_boundaries)={len(boundaries)}`."
        )
    if any(b >= a for a, b in zip(boundaries[1:], boundaries)):
        raise ValueError(f"`bucket_boundaries` must be sorted in increasing order; received "
                         f"{boundaries}")
    pad_to_bucket_boundary = as_bool("pad_to_bucket_boundary", pad_to_bucket_boundary)
    no_padding = as_bool("no_padding", no_padding)
    drop_remainder = as_bool("drop_remainder", drop_remainder)
    lows = [_INT32_MIN, *boundaries]
    highs = [*boundaries, _INT32_MAX]
    spec = dataset.element_spec

    def bucket_of(*args: Any) -> torch.Tensor:
        length = call_on(element_length_func, args[0] if len(args) == 1 else args)
        length = int(length.item() if hasattr(length, "item") else length)
        for i, (lo, hi) in enumerate(zip(lows, highs)):
            if lo <= length < hi:
                return torch.tensor(i, dtype=torch.int64)
        raise InvalidArgumentError(None, None, f"element_length_func returned {length}, "
                                   "outside the int32 range of the buckets")

    def window_size(bucket: torch.Tensor) -> int:
        return sizes[int(bucket)]

    targets = _target_shapes(spec, padded_shapes)
    # Without padded_shapes, pad to the longest element: the same as TF's padding to the
    # input's static dims where those are right, and safe where a `map`'s spec, taken from
    # its first element, is more specific than the data (variable-length arrays).
    padding = targets if padded_shapes is not None or pad_to_bucket_boundary else [
        None if s is None else [None] * len(s) for s in targets]

    def batching(bucket: torch.Tensor, window: Dataset) -> Dataset:
        size = sizes[int(bucket)]
        if no_padding:
            return window.batch(size, drop_remainder=drop_remainder)
        filler = None
        if pad_to_bucket_boundary:
            if int(bucket) >= len(sizes) - 1:
                raise InvalidArgumentError(
                    None, None, "assertion failed: [When pad_to_bucket_boundary=True, "
                    "elements must have length < max(bucket_boundaries).]")
            filler = boundaries[int(bucket)] - 1
        shapes = [None if s is None else [filler if d is None else d for d in s]
                  for s in padding]
        return window.padded_batch(size, make_packer(spec)(shapes), padding_values,
                                   drop_remainder=drop_remainder)

    out_specs = [
        TensorSpec(None if shape is None else (None, *(shape if no_padding else t)), s.dtype)
        for s, shape, t in zip(flat_specs(spec), [s.shape for s in flat_specs(spec)], targets)
    ]
    return GroupByWindowDataset(dataset, bucket_of, batching, window_size,
                                element_spec=with_flat_specs(spec, out_specs))


def _target_shapes(spec: Any, padded_shapes: Any) -> list:
    """The padded shape of each flat component (None dims: pad to the longest / boundary)."""
    specs = flat_specs(spec)
    if padded_shapes is None:
        return [None if s.shape is None else list(s.shape) for s in specs]
    shapes = _flatten_up_to(spec, padded_shapes, "padded_shapes")
    return [None if s is None else [None if d is None or int(d) == -1 else int(d) for d in s]
            for s in shapes]
