"""TF1 top-level sparse names (`tf.compat.v1.sparse_*`) with TF1 signatures.

`SPARSE_NAMES` maps each TF1 name to its implementation on `tf.sparse`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import sparse as _sp
from torchestimator._sparse_tensor import SparseTensor, SparseTensorValue
from torchestimator.compat.v1._legacy_ops import _deprecated


def sparse_add(a: Any, b: Any, threshold: Any = None, thresh: Any = None) -> Any:
    """TF1 `tf.sparse_add(a, b, threshold=None, thresh=None)`."""
    t = _deprecated(threshold, thresh, "threshold", "thresh")
    return _sp.add(a, b, 0 if t is None else t)


def sparse_concat(axis: Any, sp_inputs: list, name: str | None = None,
                  expand_nonconcat_dim: bool = False, concat_dim: Any = None,
                  expand_nonconcat_dims: Any = None) -> SparseTensor:
    """TF1 `tf.sparse_concat` (also accepts `concat_dim` / `expand_nonconcat_dim`)."""
    axis = _deprecated(axis, concat_dim, "axis", "concat_dim")
    exp = _deprecated(expand_nonconcat_dims, expand_nonconcat_dim or None, "expand_nonconcat_dims",
                "expand_nonconcat_dim")
    return _sp.concat(axis, sp_inputs, expand_nonconcat_dims=bool(exp))


def _reduce(fn: Callable, sparse_out: bool) -> Callable:
    def reduce(sp_input: SparseTensor, axis: Any = None, keepdims: Any = None,
               reduction_axes: Any = None, keep_dims: Any = None) -> Any:
        ax = _deprecated(axis, reduction_axes, "axis", "reduction_axes")
        kd = _deprecated(keepdims, keep_dims, "keepdims", "keep_dims")
        return fn(sp_input, ax, bool(kd), output_is_sparse=sparse_out)
    reduce.__doc__ = (f"TF1 `{fn.__name__}` (axis/reduction_axes, keepdims/keep_dims); "
                      f"{'sparse' if sparse_out else 'dense'} result.")
    return reduce


def sparse_split(keyword_required: Any = None, sp_input: Any = None, num_split: Any = None,
                 axis: Any = None, name: str | None = None, split_dim: Any = None) -> list:
    """TF1 `tf.sparse_split` (keyword arguments only; `split_dim` is the old `axis`)."""
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    return _sp.split(sp_input=sp_input, num_split=num_split,
                     axis=_deprecated(axis, split_dim, "axis", "split_dim"))


def sparse_to_dense(sparse_indices: Any, output_shape: Any, sparse_values: Any,
                    default_value: Any = 0, validate_indices: bool = True,
                    name: str | None = None) -> Any:
    """TF1 `tf.sparse_to_dense`: dense tensor of `output_shape` with values at indices."""
    idx = np.asarray(sparse_indices, dtype=np.int64)
    shape = [int(s) for s in np.atleast_1d(np.asarray(output_shape))]
    if idx.ndim < 2:
        idx = idx.reshape(-1, 1) if len(shape) == 1 else idx.reshape(1, -1)
    vals = np.asarray(sparse_values.numpy() if isinstance(sparse_values, torch.Tensor)
                      else sparse_values)
    if vals.ndim == 0:
        vals = np.full(idx.shape[0], vals)
    sp = SparseTensor(idx, vals, shape)
    return _sp.to_dense(sp, default_value, validate_indices=validate_indices)


def sparse_segment(fn: Callable) -> Callable:
    def seg(data: Any, indices: Any, segment_ids: Any, name: str | None = None,
            num_segments: Any = None, sparse_gradient: bool = False) -> torch.Tensor:
        return fn(data, indices, segment_ids, num_segments, sparse_gradient=sparse_gradient)
    seg.__doc__ = (f"TF1 `{fn.__name__}(data, indices, segment_ids, name=None, num_segments=None, "
                   "sparse_gradient=False)` (the gradient is always a dense tensor here).")
    return seg


SPARSE_NAMES: dict[str, Callable] = {
    "sparse_add": sparse_add,
    "sparse_concat": sparse_concat,
    "sparse_fill_empty_rows": _sp.fill_empty_rows,
    "sparse_maximum": _sp.maximum,
    "sparse_minimum": _sp.minimum,
    "sparse_reduce_max": _reduce(_sp.reduce_max, False),
    "sparse_reduce_max_sparse": _reduce(_sp.reduce_max, True),
    "sparse_reduce_sum": _reduce(_sp.reduce_sum, False),
    "sparse_reduce_sum_sparse": _reduce(_sp.reduce_sum, True),
    "sparse_reorder": _sp.reorder,
    "sparse_reset_shape": _sp.reset_shape,
    "sparse_reshape": _sp.reshape,
    "sparse_retain": _sp.retain,
    "sparse_segment_mean": sparse_segment(_sp.segment_mean),
    "sparse_segment_sqrt_n": sparse_segment(_sp.segment_sqrt_n),
    "sparse_segment_sum": sparse_segment(_sp.segment_sum),
    "sparse_slice": _sp.slice,
    "sparse_softmax": _sp.softmax,
    "sparse_split": sparse_split,
    "sparse_tensor_dense_matmul": _sp.sparse_dense_matmul,
    "sparse_tensor_to_dense": _sp.to_dense,
    "sparse_to_dense": sparse_to_dense,
    "sparse_to_indicator": _sp.to_indicator,
    "sparse_transpose": _sp.transpose,
    "SparseTensorValue": SparseTensorValue,
}
