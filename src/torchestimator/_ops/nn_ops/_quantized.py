"""TF1's quantized nn ops: quantized_avg_pool, quantized_max_pool, quantized_relu_x and
quantized_conv2d, on TF's quantized tensors (a uint8 tensor for quint8, int8 for qint8, int32
for qint32) with their float ranges `[min, max]`, as TF's kernels
(tensorflow/core/kernels/quantized_*_op.cc, quantization_utils.h) compute them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.nn_ops._common import Tensor
from torchestimator._ops.nn_ops._data_format import _padding, _spatial
from torchestimator.errors import InvalidArgumentError

# quantized storage dtype -> (lowest, highest)
_RANGES = {torch.uint8: (0, 255), torch.int8: (-128, 127), torch.int16: (-32768, 32767),
           torch.int32: (-(2 ** 31), 2 ** 31 - 1)}


def _quantized(value: Any, op: str, arg: str) -> Tensor:
    if not isinstance(value, Tensor):
        value = torch.as_tensor(np.asarray(value))
    if value.dtype not in _RANGES:
        raise TypeError(f"{op}: `{arg}` must be a quantized tensor (uint8 for quint8, int8 for "
                        f"qint8, int16, int32), got {dtype_name(value.dtype)}.")
    return value


#: Each quantized dtype's storage here (TF's quint8 is a uint8 tensor, ...).
_STORAGE_OF = {"quint8": "uint8", "qint8": "int8", "qint16": "int16", "qint32": "int32"}


def _check_out_type(op: str, out_type: Any, want: str) -> None:
    """TF's kernel makes only `want` (quint8, qint32, ...); its storage dtype is accepted too."""
    try:
        have = dtype_name(_dtypes.as_dtype(out_type))
    except (TypeError, ValueError):
        have = repr(out_type)
    if have not in (want, _STORAGE_OF[want]):
        raise TypeError(f"{op}: `out_type` must be {want} (TF's kernel makes no other), got {have}.")


def _scalar(value: Any, op: str, arg: str) -> float:
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise InvalidArgumentError(None, None, f"{op}: `{arg}` must be a scalar, got shape "
                                       f"{list(value.shape)}.")
        return float(value.reshape(()).item())
    try:
        return float(np.asarray(value, dtype=np.float32).reshape(()))
    except (TypeError, ValueError):
        raise InvalidArgumentError(None, None, f"{op}: `{arg}` must be a float scalar, got "
                                   f"{value!r}.") from None


def _round(x: float) -> float:
    """std::round: halves away from zero."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def float_to_quantized_unclamped(value: float, range_min: float, range_max: float,
                                 dtype: torch.dtype) -> int:
    """TF's FloatToQuantizedUnclamped<T>."""
    lowest, highest = _RANGES[dtype]
    if range_min == range_max:
        return lowest
    steps = float(highest - lowest + 1)
    range_adjust = steps / (steps - 1.0)
    scale = steps / ((range_max - range_min) * range_adjust)
    return int(_round(value * scale) - _round(range_min * scale)) + lowest


def float_to_quantized(value: float, range_min: float, range_max: float,
                       dtype: torch.dtype) -> int:
    """TF's FloatToQuantized<T>: clamped to the dtype's range."""
    lowest, highest = _RANGES[dtype]
    return min(max(float_to_quantized_unclamped(value, range_min, range_max, dtype), lowest),
               highest)


def _float_for_one_level(range_min: float, range_max: float, dtype: torch.dtype) -> np.float32:
    """TF's FloatForOneQuantizedLevel<T>, in float32 as TF's."""
    lowest, highest = _RANGES[dtype]
    return np.float32(np.float32(range_max) - np.float32(range_min)) / np.float32(
        highest - lowest)


def _f32(v: float) -> Tensor:
    return torch.tensor(v, dtype=torch.float32)


def _check_range(op: str, min_v: float, max_v: float, names: tuple[str, str]) -> None:
    if min_v > max_v:
        raise InvalidArgumentError(None, None, f"{op}: `{names[0]}` ({min_v}) must be <= "
                                   f"`{names[1]}` ({max_v}).")


def _pool_windows(x: Tensor, ksize: Any, strides: Any, padding: str, op: str
                  ) -> tuple[Tensor, Tensor, tuple[int, int]]:
    """NHWC x (float64) as patches [N, C, kh*kw, L] and a validity mask of the same layout."""
    if x.ndim != 4:
        raise InvalidArgumentError(None, None, f"{op}: `input` must be 4-D NHWC, got shape "
                                   f"{list(x.shape)}.")
    k = _spatial(ksize, 2, True, op, "ksize")
    s = _spatial(strides, 2, True, op, "strides")
    pads = _padding(padding, 2, True, tuple(x.shape[1:3]), k, s, (1, 1), op, explicit_ok=False)
    xc = x.permute(0, 3, 1, 2)
    ones = torch.ones_like(xc)
    pad = (pads[1][0], pads[1][1], pads[0][0], pads[0][1])
    xc, ones = F.pad(xc, pad), F.pad(ones, pad)
    out_h = (xc.shape[2] - k[0]) // s[0] + 1
    out_w = (xc.shape[3] - k[1]) // s[1] + 1
    if out_h < 1 or out_w < 1:
        raise InvalidArgumentError(None, None, f"{op}: ksize {list(k)} is larger than the input "
                                   f"{list(x.shape[1:3])} with {padding} padding.")
    n, c = xc.shape[:2]
    patches = F.unfold(xc, k, stride=s).reshape(n, c, k[0] * k[1], out_h * out_w)
    mask = F.unfold(ones, k, stride=s).reshape(n, c, k[0] * k[1], out_h * out_w)
    return patches, mask, (out_h, out_w)


def quantized_avg_pool(input: Any, min_input: Any, max_input: Any, ksize: Any, strides: Any,
                       padding: str, name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Average pooling of a quantized NHWC `input` (TF1's `tf.compat.v1.nn.quantized_avg_pool`):
    each window's quantized values averaged (over the elements inside the input) and rounded
    half to even; the range is unchanged.

    Returns:
        A tuple (output, min_output, max_output): output in `input`'s quantized dtype, the
        range float32 scalars.
    """
    op = "quantized_avg_pool"
    q = _quantized(input, op, "input")
    lo, hi = _scalar(min_input, op, "min_input"), _scalar(max_input, op, "max_input")
    patches, mask, (oh, ow) = _pool_windows(q.to(torch.float64), ksize, strides, padding, op)
    avg = (patches * mask).sum(2) / mask.sum(2)
    out = torch.round(avg).reshape(q.shape[0], q.shape[3], oh, ow).permute(0, 2, 3, 1)
    return out.to(q.dtype), _f32(lo), _f32(hi)


def quantized_max_pool(input: Any, min_input: Any, max_input: Any, ksize: Any, strides: Any,
                       padding: str, name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Max pooling of a quantized NHWC `input` (TF1's `tf.compat.v1.nn.quantized_max_pool`);
    the range is unchanged.

    Returns:
        A tuple (output, min_output, max_output).
    """
    op = "quantized_max_pool"
    q = _quantized(input, op, "input")
    lo, hi = _scalar(min_input, op, "min_input"), _scalar(max_input, op, "max_input")
    patches, mask, (oh, ow) = _pool_windows(q.to(torch.float64), ksize, strides, padding, op)
    best = torch.where(mask > 0, patches, torch.full_like(patches, -math.inf)).amax(2)
    out = best.reshape(q.shape[0], q.shape[3], oh, ow).permute(0, 2, 3, 1)
    return out.to(q.dtype), _f32(lo), _f32(hi)


def quantized_relu_x(features: Any, max_value: Any, min_features: Any, max_features: Any,
                     out_type: Any = _dtypes.quint8, name: str | None = None
                     ) -> tuple[Tensor, Tensor, Tensor]:
    """Computes the quantized rectified linear `min(max(features, 0), max_value)` (TF1's
    `tf.compat.v1.nn.quantized_relu_x`, after TF's QuantizedReluX kernel): the quantized
    values are clamped to the levels of 0.0 and `max_value` in the input's range, which the
    output keeps. (TF 2.15's CPU build has no kernel for this op.)

    Returns:
        A tuple (activations, min_activations, max_activations).
    """
    op = "quantized_relu_x"
    q = _quantized(features, op, "features")
    lo = _scalar(min_features, op, "min_features")
    hi = _scalar(max_features, op, "max_features")
    top = _scalar(max_value, op, "max_value")
    _check_range(op, lo, hi, ("min_features", "max_features"))
    if out_type is not q.dtype:
        _check_out_type(op, out_type, "quint8")
    zero = float_to_quantized(0.0, lo, hi, q.dtype)
    cap = float_to_quantized(top, lo, hi, q.dtype)
    out = q.to(torch.int64).clamp(min=zero).clamp(max=cap)
    return out.to(q.dtype), _f32(lo), _f32(hi)


def quantized_conv2d(input: Any, filter: Any, min_input: Any, max_input: Any, min_filter: Any,
                     max_filter: Any, strides: Any, padding: str, out_type: Any = _dtypes.qint32,
                     dilations: Any = (1, 1, 1, 1), name: str | None = None
                     ) -> tuple[Tensor, Tensor, Tensor]:
    """2-D convolution of a quantized NHWC `input` with a quantized `filter` `[height, width,
    in_channels, out_channels]` (TF1's `tf.compat.v1.nn.quantized_conv2d`): the sum of
    (input - input's zero level) * (filter - filter's zero level), an exact qint32, whose
    range is one level of input times one level of filter across int32's range.

    Returns:
        A tuple (output, min_output, max_output): output int32 (qint32), the range float32.
    """
    op = "quantized_conv2d"
    _check_out_type(op, out_type, "qint32")
    x = _quantized(input, op, "input")
    w = _quantized(filter, op, "filter")
    lo_x, hi_x = _scalar(min_input, op, "min_input"), _scalar(max_input, op, "max_input")
    lo_w, hi_w = _scalar(min_filter, op, "min_filter"), _scalar(max_filter, op, "max_filter")
    _check_range(op, lo_x, hi_x, ("min_input", "max_input"))
    _check_range(op, lo_w, hi_w, ("min_filter", "max_filter"))
    if x.ndim != 4 or w.ndim != 4:
        raise InvalidArgumentError(None, None, f"{op}: `input` and `filter` must be 4-D, got "
                                   f"{list(x.shape)} and {list(w.shape)}.")
    if w.shape[2] != x.shape[3]:
        raise InvalidArgumentError(None, None, f"{op}: the filter's in_channels ({w.shape[2]}) "
                                   f"must equal the input's depth ({x.shape[3]}).")
    s = _spatial(strides, 2, True, op, "strides")
    d = _spatial(dilations, 2, True, op, "dilations")
    if d != (1, 1):
        raise InvalidArgumentError(None, None, f"{op}: dilations other than 1 are not "
                                   f"supported by TF's kernel, got {list(dilations)}.")
    off_x = float_to_quantized_unclamped(0.0, lo_x, hi_x, x.dtype)
    off_w = float_to_quantized_unclamped(0.0, lo_w, hi_w, w.dtype)
    k = tuple(w.shape[:2])
    pads = _padding(padding, 2, True, tuple(x.shape[1:3]), k, s, d, op, explicit_ok=False)
    xc = (x.to(torch.float64) - off_x).permute(0, 3, 1, 2)
    xc = F.pad(xc, (pads[1][0], pads[1][1], pads[0][0], pads[0][1]))
    wc = (w.to(torch.float64) - off_w).permute(3, 2, 0, 1)
    y = F.conv2d(xc, wc, stride=s).permute(0, 2, 3, 1)
    y = torch.round(y).clamp(-(2 ** 31), 2 ** 31 - 1).to(torch.int32)
    level = np.float32(_float_for_one_level(lo_x, hi_x, x.dtype)
                       * _float_for_one_level(lo_w, hi_w, w.dtype))
    lo32, hi32 = _RANGES[torch.int32]
    return (y, _f32(float(np.float32(level * np.float32(lo32)))),
            _f32(float(np.float32(level * np.float32(hi32)))))
