"""TF1's `tf.compat.v1` functions whose arguments differ from the TF2 function of the same name:
TF1's order (`gather(params, indices, validate_indices, name, axis)`, `pad(tensor, paddings,
mode, name, constant_values)`, ...), TF1's deprecated names (`block_size`, `keep_dims`,
`bytes`, ...), and the assertions' `data` (what an assertion shows when it fails).

Each takes TF 1.x's arguments and calls the project's TF2 function; passing both the new and
the deprecated name of one argument raises TF's ValueError. `NAMES` maps each `tf.compat.v1`
name to its function here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import torchestimator as tf
from torchestimator._ops import check_ops
from torchestimator._ops import graph_compat as _graph_compat
from torchestimator._ops.control_ops import name_scope as _name_scope_v2
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.nn_ops._nn_extras import space_to_batch_v1
from torchestimator._ops.string_ops._common import _strings
from torchestimator._ragged._tensor import RaggedTensor
from torchestimator._sparse_tensor import SparseTensor
from torchestimator.compat.v1 import nn as _nn_v1
from torchestimator.compat.v1._legacy_ops import _deprecated
from torchestimator.errors import InvalidArgumentError


# ------------------------------------------------------------------ assertions
def _binary_assertion(sym: str, label: str, op: Callable) -> Callable:
    def check(x: Any, y: Any, data: Any = None, summarize: Any = None, message: Any = None,
              name: str | None = None) -> None:
        check_ops._binary_assert(sym, label, op, x, y, data, summarize, message)

    check.__name__ = check.__qualname__ = label
    check.__doc__ = (f"TF1's `{label}(x, y, data, summarize, message, name)`: raises "
                     f"InvalidArgumentError unless `x {sym} y` element-wise, showing `message` "
                     "and `data` (by default the condition and the first differing values).")
    return check


assert_equal = _binary_assertion("==", "assert_equal", lambda a, b: a == b)
assert_none_equal = _binary_assertion("!=", "assert_none_equal", lambda a, b: a != b)
assert_greater = _binary_assertion(">", "assert_greater", torch.gt)
assert_greater_equal = _binary_assertion(">=", "assert_greater_equal", torch.ge)
assert_less = _binary_assertion("<", "assert_less", torch.lt)
assert_less_equal = _binary_assertion("<=", "assert_less_equal", torch.le)


def _sign_assertion(sym: str, label: str, op: Callable) -> Callable:
    def check(x: Any, data: Any = None, summarize: Any = None, message: Any = None,
              name: str | None = None) -> None:
        check_ops._sign_assert(x, sym, label, op, message, summarize, data)

    check.__name__ = check.__qualname__ = label
    check.__doc__ = (f"TF1's `{label}(x, data, summarize, message, name)`: raises "
                     f"InvalidArgumentError unless `x {sym} 0` element-wise, showing `data` (by "
                     "default `message`, the condition and `x`).")
    return check


assert_positive = _sign_assertion(">", "assert_positive", torch.gt)
assert_non_negative = _sign_assertion(">=", "assert_non_negative", torch.ge)
assert_negative = _sign_assertion("<", "assert_negative", torch.lt)
assert_non_positive = _sign_assertion("<=", "assert_non_positive", torch.le)


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None, data: Any = None,
                summarize: Any = None, message: Any = None, name: str | None = None) -> None:
    """TF1's `assert_near(x, y, rtol, atol, data, summarize, message, name)`: raises
    InvalidArgumentError unless `|x - y| <= atol + rtol * |y|` element-wise, showing `data`
    (by default `message`, the tolerances, `x` and `y`)."""
    check_ops._assert_near(x, y, rtol, atol, data, summarize, message)


# A rank is always known here, so the rank checks fail at once with TF's static ValueError,
# which (as TF's) shows `message` and not `data`, the tensors of TF's graph-time check.
def assert_rank(x: Any, rank: Any, data: Any = None, summarize: Any = None, message: Any = None,
                name: str | None = None) -> None:
    """TF1's `assert_rank(x, rank, data, summarize, message, name)`: ValueError unless `x` has
    rank `rank` (`data` and `summarize` belong to TF's graph-time check; the rank is known at
    once here, as in TF's static check, which shows `message`)."""
    check_ops.assert_rank(x, rank, message=message)


def assert_rank_at_least(x: Any, rank: Any, data: Any = None, summarize: Any = None,
                         message: Any = None, name: str | None = None) -> None:
    """TF1's `assert_rank_at_least(x, rank, data, summarize, message, name)`: ValueError unless
    `x` has rank `rank` or more (`data` and `summarize` as in `assert_rank`)."""
    check_ops.assert_rank_at_least(x, rank, message=message)


def assert_rank_in(x: Any, ranks: Any, data: Any = None, summarize: Any = None,
                   message: Any = None, name: str | None = None) -> None:
    """TF1's `assert_rank_in(x, ranks, data, summarize, message, name)`: ValueError unless the
    rank of `x` is one of `ranks` (`data` and `summarize` as in `assert_rank`)."""
    check_ops.assert_rank_in(x, ranks, message=message)


def assert_scalar(tensor: Any, name: str | None = None, message: Any = None) -> Any:
    """TF1's `assert_scalar(tensor, name, message)`: ValueError unless `tensor` is a scalar;
    returns it."""
    return check_ops.assert_scalar(tensor, message=message)


# ------------------------------------------------------------------ arrays
def batch_to_space(input: Any, crops: Any, block_size: Any, name: str | None = None,  # noqa: A002
                   block_shape: Any = None) -> Any:
    """TF1's `batch_to_space(input, crops, block_size, name, block_shape)`: a 4-D input and one
    square block size (`block_shape` is the new name of `block_size`)."""
    size = _deprecated(block_shape, block_size, "block_shape", "block_size")
    if size is None:
        raise ValueError("batch_to_space: pass `block_size`.")
    size = int(np.asarray(size.cpu() if isinstance(size, torch.Tensor) else size).reshape(()))
    result = tf.batch_to_space(input, [size, size], crops)
    if result.ndim != 4:
        raise ValueError(f"batch_to_space: the input must be 4-D; received rank {result.ndim}.")
    return result


space_to_batch = space_to_batch_v1


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Any:
    """TF1's `boolean_mask(tensor, mask, name, axis)`: the entries of `tensor` where `mask`
    is true (`mask` covers the dimensions from `axis`, 0 by default)."""
    return tf.boolean_mask(tensor, mask, axis=axis)


def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None,
                     dtype: Any = tf.int32, name: str | None = None, weights: Any = None) -> Any:
    """TF1's `confusion_matrix(labels, predictions, num_classes, dtype, name, weights)`."""
    return tf.math.confusion_matrix(labels, predictions, num_classes, weights=weights, dtype=dtype)


def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None,
           axis: Any = None, batch_dims: int = 0) -> Any:
    """TF1's `gather(params, indices, validate_indices, name, axis, batch_dims)`
    (`validate_indices` has no effect, as in TF)."""
    return tf.gather(params, indices, axis=axis, batch_dims=batch_dims)


def gather_nd(params: Any, indices: Any, name: str | None = None, batch_dims: int = 0) -> Any:
    """TF1's `gather_nd(params, indices, name, batch_dims)`."""
    return tf.gather_nd(params, indices, batch_dims=batch_dims)


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: str | None = None,
        constant_values: Any = 0) -> Any:
    """TF1's `pad(tensor, paddings, mode, name, constant_values)`."""
    return tf.pad(tensor, paddings, mode=mode, constant_values=constant_values)


def shape(input: Any, name: str | None = None, out_type: Any = None) -> Any:  # noqa: A002
    """TF1's `shape(input, name, out_type)`: the shape of `input` (int32 by default)."""
    return tf.shape(input, out_type=out_type)


def size(input: Any, name: str | None = None, out_type: Any = None) -> Any:  # noqa: A002
    """TF1's `size(input, name, out_type)`: the number of elements (int32 by default)."""
    return tf.size(input, out_type=out_type)


def transpose(a: Any, perm: Any = None, name: str = "transpose", conjugate: bool = False) -> Any:
    """TF1's `transpose(a, perm, name, conjugate)`."""
    return tf.transpose(a, perm, conjugate=conjugate)


def tuple(tensors: Any, name: str | None = None, control_inputs: Any = None) -> Any:  # noqa: A001
    """TF1's `tuple(tensors, name, control_inputs)`: the tensors (every value is computed)."""
    return _graph_compat.tuple(tensors, control_inputs=control_inputs)


class name_scope(_name_scope_v2):  # noqa: N801 - TF's name
    """TF1's `name_scope(name, default_name=None, values=None)`: the scope `name`, or
    `default_name` when `name` is None (neither: the top scope). `values` (TF's graph check
    of the inputs) only makes TF's check that a name is given."""

    def __init__(self, name: Any, default_name: Any = None, values: Any = None):
        if default_name is not None and not isinstance(default_name, str):
            raise TypeError(f"`default_name` type ({type(default_name)}) is not a string type. "
                            "You likely meant to pass this into the `values` kwarg.")
        chosen = default_name if name is None else name
        if chosen is None and values is not None:
            raise ValueError(f"At least one of name ({name}) and default_name ({default_name}) "
                             "must be provided.")
        super().__init__(chosen or "")
        self._name = chosen


# ------------------------------------------------------------------ parsing and strings
def parse_example(serialized: Any, features: Any, name: str | None = None,
                  example_names: Any = None) -> dict[str, Any]:
    """TF1's `parse_example(serialized, features, name, example_names)`: `tf.io.parse_example`."""
    return tf.io.parse_example(serialized, features, example_names=example_names)


def parse_single_example(serialized: Any, features: Any, name: str | None = None,
                         example_names: Any = None) -> dict[str, Any]:
    """TF1's `parse_single_example(serialized, features, name, example_names)`:
    `tf.io.parse_single_example`."""
    return tf.io.parse_single_example(serialized, features, example_names=example_names)


def decode_raw(input_bytes: Any = None, out_type: Any = None, little_endian: bool = True,
               name: str | None = None, bytes: Any = None) -> Any:  # noqa: A002
    """TF1's `decode_raw(input_bytes, out_type, little_endian, name, bytes)` (`bytes` is the old
    name of `input_bytes`): `tf.io.decode_raw`."""
    input_bytes = _deprecated(input_bytes, bytes, "input_bytes", "bytes")
    if out_type is None:
        raise ValueError("decode_raw_v1() missing 1 positional argument: 'out_type'")
    return tf.io.decode_raw(input_bytes, out_type, little_endian=little_endian)


def reduce_join(inputs: Any, axis: Any = None, keep_dims: Any = None, separator: str = "",
                name: str | None = None, reduction_indices: Any = None, keepdims: Any = None) -> Any:
    """TF1's `reduce_join(inputs, axis, keep_dims, separator, name, reduction_indices,
    keepdims)`: `tf.strings.reduce_join`."""
    keepdims = _deprecated(keepdims, keep_dims, "keepdims", "keep_dims")
    axis = _deprecated(axis, reduction_indices, "axis", "reduction_indices")
    return tf.strings.reduce_join(inputs, axis=axis, keepdims=bool(keepdims), separator=separator)


def substr(input: Any, pos: Any, len: Any, name: str | None = None,  # noqa: A002
           unit: str = "BYTE") -> Any:
    """TF1's `substr(input, pos, len, name, unit)`: `tf.strings.substr`."""
    return tf.strings.substr(input, pos, len, unit=unit)


def _split_tokens(text: Any, delimiter: str, skip_empty: bool) -> list:
    """TF1's StringSplit of one string: every character of `delimiter` separates ('' splits
    into single bytes); an empty string has no tokens."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", errors="surrogateescape")
    if not text:
        return []
    if not delimiter:
        return list(text) if text.isascii() else [bytes([b]) for b in text.encode("utf-8")]
    pieces = re.split("[" + re.escape(delimiter) + "]", text)
    return [p for p in pieces if p] if skip_empty else pieces


def string_split(source: Any, sep: Any = None, skip_empty: bool = True, delimiter: Any = None,
                 result_type: str = "SparseTensor", name: str | None = None) -> Any:
    """TF1's `string_split(source, sep, skip_empty, delimiter, result_type, name)`: splits each
    string of the 1-D `source` at every character of `sep` (' ' by default; '' splits into
    bytes), dropping empty tokens when `skip_empty`. Returns a `SparseTensor` [rows, most
    tokens] of the tokens, or a `RaggedTensor` with `result_type='RaggedTensor'`."""
    sep = _deprecated(sep, delimiter, "sep", "delimiter")
    sep = " " if sep is None else sep
    if isinstance(sep, np.ndarray):
        sep = sep.item()
    if isinstance(sep, (bytes, bytearray)):
        sep = sep.decode("utf-8")
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    array = _strings(source, "string_split")
    if array.ndim != 1:
        raise InvalidArgumentError(None, None, "string_split: input must be a vector, got shape: "
                                   f"{list(array.shape)}")
    rows = [_split_tokens(text, str(sep), bool(skip_empty)) for text in array.tolist()]
    values = np.empty(sum(len(r) for r in rows), dtype=object)
    values[:] = [t for r in rows for t in r]
    if result_type == "RaggedTensor":
        splits = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rows], out=splits[1:])
        return RaggedTensor.from_row_splits(values, torch.from_numpy(splits), validate=False)
    indices = np.array([[i, j] for i, r in enumerate(rows) for j in range(len(r))],
                       dtype=np.int64).reshape(-1, 2)
    width = max((len(r) for r in rows), default=0)
    return SparseTensor(indices, values, [len(rows), width])


# ------------------------------------------------------------------ FFTs (TF1's raw ops)
def fftnd(input: Any, fft_length: Any, axes: Any, name: str | None = None) -> Any:  # noqa: A002
    """TF1's `fftnd(input, fft_length, axes, name)`: the N-D FFT over `axes`, each padded or
    cropped to `fft_length`."""
    return tf.signal.fftnd(input, fft_length, axes)


def ifftnd(input: Any, fft_length: Any, axes: Any, name: str | None = None) -> Any:  # noqa: A002
    """TF1's `ifftnd(input, fft_length, axes, name)`: the inverse N-D FFT over `axes`."""
    return tf.signal.ifftnd(input, fft_length, axes)


def _check_kind(op: str, result: Any, argument: str, want: Any) -> Any:
    """`result`, if of dtype `want`: TF's kernels pair float32 with complex64 only, and float64
    with complex128."""
    want = tf.as_dtype(want)
    if result.dtype != want:
        raise TypeError(f"{op}: {argument}={dtype_name(want)} does not match the input: the result "
                        f"is {dtype_name(result.dtype)} (float32 goes with complex64, float64 with "
                        "complex128).")
    return result


def rfftnd(input: Any, fft_length: Any, axes: Any, Tcomplex: Any = tf.complex64,  # noqa: A002,N803
           name: str | None = None) -> Any:
    """TF1's `rfftnd(input, fft_length, axes, Tcomplex, name)`: the N-D FFT of a real input,
    of dtype `Tcomplex` (complex64 for a float32 input, complex128 for float64)."""
    return _check_kind("rfftnd", tf.signal.rfftnd(input, fft_length, axes), "Tcomplex", Tcomplex)


def irfftnd(input: Any, fft_length: Any, axes: Any, Treal: Any = tf.float32,  # noqa: A002,N803
            name: str | None = None) -> Any:
    """TF1's `irfftnd(input, fft_length, axes, Treal, name)`: the real inverse N-D FFT, of
    dtype `Treal` (float32 for a complex64 input, float64 for complex128)."""
    return _check_kind("irfftnd", tf.signal.irfftnd(input, fft_length, axes), "Treal", Treal)


#: `tf.compat.v1` name -> its TF1 function.
NAMES: dict[str, Any] = {
    name: value for name, value in globals().items()
    if not name.startswith("_") and callable(value)
    and getattr(value, "__module__", "") == __name__
}
NAMES.update({
    "space_to_batch": space_to_batch_v1,
    "depth_to_space": _nn_v1.depth_to_space,
    "space_to_depth": _nn_v1.space_to_depth,
})
