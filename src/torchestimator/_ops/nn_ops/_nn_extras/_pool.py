"""tf.nn's morphological dilation and erosion, `max_pool_with_argmax`, N-D `pool` and
fractional pooling, as TF 2.15's.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.nn_ops._common import Tensor, _numeric
from torchestimator._ops.nn_ops._data_format import _padding, _spatial
from torchestimator._ops.nn_ops._nn_extras._args import _ints
from torchestimator._ops.nn_ops._pooling import avg_pool, max_pool
from torchestimator.errors import InvalidArgumentError


def _nhwc(data_format: Any, op: str) -> None:
    if data_format != "NHWC":
        raise ValueError(f"{op}: `data_format` values other than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")


def _window_patches(x: Tensor, kernel: tuple[int, int], strides: tuple[int, ...],
                    rates: tuple[int, ...], padding: Any, fill: float, op: str
                    ) -> tuple[Tensor, int, int]:
    """NHWC `x` as patches [N, C, kh*kw, out_h*out_w] (padding filled with `fill`)."""
    sizes = tuple(x.shape[1:3])
    pads = _padding(padding, 2, True, sizes, kernel, strides, rates, op, explicit_ok=False)
    xc = x.permute(0, 3, 1, 2)
    if any(a or b for a, b in pads):
        xc = F.pad(xc, (pads[1][0], pads[1][1], pads[0][0], pads[0][1]), value=fill)
    h, w = xc.shape[2], xc.shape[3]
    eff = [(k - 1) * r + 1 for k, r in zip(kernel, rates)]
    if h < eff[0] or w < eff[1]:
        raise InvalidArgumentError(
            None, None, f"{op}: the (dilated) window {eff} is larger than the padded input "
            f"{[h, w]}; use 'SAME' padding or a smaller window.")
    out_h = (h - eff[0]) // strides[0] + 1
    out_w = (w - eff[1]) // strides[1] + 1
    n, c = xc.shape[:2]
    patches = F.unfold(xc, kernel, dilation=rates, stride=strides)  # [N, C*kh*kw, L]
    return patches.reshape(n, c, kernel[0] * kernel[1], out_h * out_w), out_h, out_w


def dilation2d(input: Any, filters: Any, strides: Any, padding: str, data_format: str,
               dilations: Any, name: str | None = None) -> Tensor:
    """Computes the grayscale morphological dilation of the NHWC `input` with `filters`
    `[height, width, channels]`: out = max over the window of input + filter (TF's
    `tf.nn.dilation2d`; `strides` and `dilations` are 4-D, `[1, s_h, s_w, 1]`).

    Returns:
        A 4-D NHWC tensor of `input`'s dtype.
    """
    op = "dilation2d"
    _nhwc(data_format, op)
    x = _numeric(input, op, "input")
    f = _numeric(filters, op, "filters")
    if x.ndim != 4:
        raise ValueError(f"{op}: `input` must be 4-D NHWC, got shape {list(x.shape)}.")
    if f.ndim != 3 or f.shape[2] != x.shape[3]:
        raise ValueError(f"{op}: `filters` must be 3-D [height, width, {x.shape[3]}], got "
                         f"shape {list(f.shape)}.")
    s = _spatial(strides, 2, True, op, "strides")
    r = _spatial(dilations, 2, True, op, "dilations")
    dtype = x.dtype
    xf = x.to(torch.float64)
    patches, oh, ow = _window_patches(xf, tuple(f.shape[:2]), s, r, padding, -math.inf, op)
    fw = f.to(torch.float64).permute(2, 0, 1).reshape(1, f.shape[2], -1, 1)
    out = (patches + fw).amax(dim=2)  # [N, C, L]
    out = out.reshape(x.shape[0], x.shape[3], oh, ow).permute(0, 2, 3, 1)
    return out.to(dtype)


def erosion2d(value: Any, filters: Any, strides: Any, padding: str, data_format: str,
              dilations: Any, name: str | None = None) -> Tensor:
    """Computes the grayscale morphological erosion of the NHWC `value` with `filters`:
    `-dilation2d(-value, reversed filters)` (TF's `tf.nn.erosion2d`).

    Returns:
        A 4-D NHWC tensor of `value`'s dtype.
    """
    _nhwc(data_format, "erosion2d")
    x = _numeric(value, "erosion2d", "value")
    f = _numeric(filters, "erosion2d", "filters")
    if f.ndim != 3:
        raise ValueError(f"erosion2d: `filters` must be 3-D [height, width, channels], got "
                         f"shape {list(f.shape)}.")
    return -dilation2d(-x, torch.flip(f, [0, 1]), strides, padding, "NHWC", dilations)


def dilation2d_v1(input: Any, filter: Any = None, strides: Any = None, rates: Any = None,
                  padding: Any = None, name: str | None = None, filters: Any = None,
                  dilations: Any = None) -> Tensor:
    """TF1's `tf.compat.v1.nn.dilation2d(input, filter, strides, rates, padding)`.

    Returns:
        A 4-D NHWC tensor of `input`'s dtype.
    """
    filter = filters if filter is None else filter
    rates = dilations if rates is None else rates
    if filter is None:
        raise ValueError("dilation2d: pass `filter` (or `filters`).")
    return dilation2d(input, filter, strides, padding, "NHWC", rates)


def erosion2d_v1(value: Any, kernel: Any, strides: Any, rates: Any, padding: str,
                 name: str | None = None) -> Tensor:
    """TF1's `tf.compat.v1.nn.erosion2d(value, kernel, strides, rates, padding)`.

    Returns:
        A 4-D NHWC tensor of `value`'s dtype.
    """
    return erosion2d(value, kernel, strides, padding, "NHWC", rates)


# ----------------------------------------------------------------------------- pooling
def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: str,
                         data_format: str = "NHWC", output_dtype: Any = torch.int64,
                         include_batch_in_index: bool = False,
                         name: str | None = None) -> tuple[Tensor, Tensor]:
    """Max pooling of an NHWC `input` that also returns the flattened index of each maximum
    (TF's `tf.nn.max_pool_with_argmax`): `(y * width + x) * channels + c`, plus
    `b * height * width * channels` with `include_batch_in_index`.

    Returns:
        A tuple (output, argmax): the pooled tensor and the indices (`output_dtype`).
    """
    op = "max_pool_with_argmax"
    _nhwc(data_format, op)
    x = _numeric(input, op, "input")
    if x.ndim != 4:
        raise ValueError(f"{op}: `input` must be 4-D NHWC, got shape {list(x.shape)}.")
    index_dtype = _dtypes.as_dtype(output_dtype)
    if index_dtype not in (torch.int32, torch.int64):
        raise TypeError(f"{op}: `output_dtype` must be int32 or int64, got "
                        f"{dtype_name(index_dtype)}.")
    k = _spatial(ksize, 2, True, op, "ksize")
    s = _spatial(strides, 2, True, op, "strides")
    b, h, w, c = x.shape
    xf = x.to(torch.float64)
    patches, oh, ow = _window_patches(xf, k, s, (1, 1), padding, -math.inf, op)
    base = torch.arange(h * w * c, dtype=torch.float64, device=x.device).reshape(1, h, w, c)
    if include_batch_in_index:
        base = base + (torch.arange(b, dtype=torch.float64, device=x.device) * (h * w * c)
                       ).reshape(b, 1, 1, 1)
    else:
        base = base.expand(b, h, w, c)
    idx, _, _ = _window_patches(base.contiguous(), k, s, (1, 1), padding, -1.0, op)
    pos = patches.argmax(dim=2, keepdim=True)
    values = patches.gather(2, pos).squeeze(2)
    indices = idx.gather(2, pos).squeeze(2)
    values = values.reshape(b, c, oh, ow).permute(0, 2, 3, 1).to(x.dtype)
    indices = indices.reshape(b, c, oh, ow).permute(0, 2, 3, 1).to(index_dtype)
    return values, indices


def max_pool_with_argmax_v1(input: Any, ksize: Any, strides: Any, padding: str,
                            data_format: str = "NHWC", Targmax: Any = None,
                            name: str | None = None, output_dtype: Any = None,
                            include_batch_in_index: bool = False) -> tuple[Tensor, Tensor]:
    """TF1's `tf.compat.v1.nn.max_pool_with_argmax` (`Targmax` is `output_dtype`; int64 by
    default).

    Returns:
        A tuple (output, argmax).
    """
    if Targmax is not None and output_dtype is not None and \
            _dtypes.as_dtype(Targmax) != _dtypes.as_dtype(output_dtype):
        raise ValueError("max_pool_with_argmax: `Targmax` and `output_dtype` differ; pass one.")
    dtype = Targmax if Targmax is not None else (output_dtype or torch.int64)
    return max_pool_with_argmax(input, ksize, strides, padding, data_format, dtype,
                                include_batch_in_index)


def pool(input: Any, window_shape: Any, pooling_type: str, strides: Any = None,
         padding: str = "VALID", data_format: str | None = None, dilations: Any = None,
         name: str | None = None) -> Tensor:
    """N-D max or average pooling with optional dilation (TF's `tf.nn.pool`): `pooling_type`
    'MAX' or 'AVG'; dilations > 1 need strides of 1 and 'VALID' padding, as TF's.

    Returns:
        A tensor of rank N+2 in `data_format`.
    """
    op = "pool"
    window = _ints(window_shape, op, "window_shape")
    n = len(window)
    if n not in (1, 2, 3):
        raise ValueError(f"{op}: window_shape must have 1, 2 or 3 entries, got {window}.")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported; use 'MAX' or 'AVG'.")
    st = _ints(strides, op, "strides") if strides is not None else [1] * n
    dl = _ints(dilations, op, "dilations") if dilations is not None else [1] * n
    if len(st) != n or len(dl) != n:
        raise ValueError(f"{op}: strides ({st}) and dilations ({dl}) must have one entry per "
                         f"dimension of window_shape ({window}).")
    if any(d < 1 for d in dl) or any(s < 1 for s in st):
        raise ValueError(f"{op}: strides and dilations must be positive, got strides={st}, "
                         f"dilations={dl}.")
    if any(s > 1 for s in st) and any(d > 1 for d in dl):
        raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={st} and dilation_rate={dl}")
    if padding == "SAME" and any(d > 1 for d in dl):
        raise ValueError("pooling with 'SAME' padding is not implemented for `dilation_rate` > "
                         f"1. Received: padding={padding} and dilation_rate={dl}")
    x = _numeric(input, op, "input")
    if x.ndim != n + 2:
        raise ValueError(f"{op}: input must have rank {n + 2} for a {n}-D window, got shape "
                         f"{list(x.shape)}.")
    if data_format is not None and data_format.startswith("NC"):
        channels_last = False
    else:
        channels_last = True
    fmt = ({1: "NWC", 2: "NHWC", 3: "NDHWC"} if channels_last else
           {1: "NCW", 2: "NCHW", 3: "NCDHW"})[n]
    if all(d == 1 for d in dl):
        fn = max_pool if pooling_type == "MAX" else avg_pool
        return fn(x, window, st, padding, fmt)
    # dilated, VALID, stride 1: every window of (k - 1) * d + 1 taking every d-th element
    xc = x if not channels_last else x.movedim(-1, 1)
    out = xc
    for i, (k, d) in enumerate(zip(window, dl)):
        dim = 2 + i
        span = (k - 1) * d + 1
        if out.shape[dim] < span:
            raise InvalidArgumentError(
                None, None, f"{op}: the dilated window ({span}) is larger than the input's "
                f"dimension {i} ({out.shape[dim]}).")
        out = out.unfold(dim, span, 1)[..., ::d]
    window_dims = tuple(range(out.ndim - n, out.ndim))
    if pooling_type == "MAX":
        out = out.amax(dim=window_dims)
    else:
        if not x.is_floating_point():
            raise InvalidArgumentError(None, None, f"{op}: AVG pooling needs a floating-point "
                                       f"input, got {dtype_name(x.dtype)}.")
        out = out.mean(dim=window_dims)
    return out.movedim(1, -1) if channels_last else out


def pool_v1(input: Any, window_shape: Any, pooling_type: str, padding: str,
            dilation_rate: Any = None, strides: Any = None, name: str | None = None,
            data_format: str | None = None, dilations: Any = None) -> Tensor:
    """TF1's `tf.compat.v1.nn.pool(input, window_shape, pooling_type, padding,
    dilation_rate, strides, ...)`.

    Returns:
        A tensor of rank N+2 in `data_format`.
    """
    if dilation_rate is not None and dilations is not None:
        raise ValueError("pool: pass `dilation_rate` or `dilations`, not both.")
    return pool(input, window_shape, pooling_type, strides, padding, data_format,
                dilation_rate if dilation_rate is not None else dilations)


def _pooling_sequence(length: int, out_len: int, pseudo_random: bool,
                      gen: torch.Generator) -> list[int]:
    """TF's GeneratePoolingSequence: the boundaries of `out_len` pooling regions over
    `length` elements."""
    if pseudo_random:
        alpha = length / out_len
        k = length // out_len
        u_max1 = (k + 2) / alpha - 1
        u_max2 = (length + 1 - k) / alpha - (out_len - 1)
        u = float(torch.rand((), generator=gen, dtype=torch.float64)) * min(u_max1, u_max2)
        seq = [0] + [int(math.ceil(alpha * (i + u))) - 1 for i in range(1, out_len)] + [length]
        return seq
    k = length // out_len
    extra = length % out_len
    diff = [k + 1] * extra + [k] * (out_len - extra)
    order = torch.randperm(out_len, generator=gen).tolist()
    diff = [diff[i] for i in order]
    seq = [0]
    for d in diff:
        seq.append(seq[-1] + d)
    return seq


def _fractional_pool(kind: str, value: Any, pooling_ratio: Any, pseudo_random: bool,
                     overlapping: bool, seed: int, seed2: int = 0
                     ) -> tuple[Tensor, Tensor, Tensor]:
    op = f"fractional_{kind}_pool"
    x = _numeric(value, op, "value")
    if x.ndim != 4:
        raise ValueError(f"{op}: `value` must be 4-D NHWC, got shape {list(x.shape)}.")
    ratio = [float(r) for r in (pooling_ratio if isinstance(pooling_ratio, (list, tuple))
                                else [1.0, pooling_ratio, pooling_ratio, 1.0])]
    if len(ratio) == 2:
        ratio = [1.0] + ratio + [1.0]
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0:
        raise InvalidArgumentError(
            None, None, f"{op}: pooling_ratio must be [1.0, row, col, 1.0] (pooling along the "
            f"batch or channel dimension is not supported), got {pooling_ratio}.")
    if any(r < 1.0 for r in ratio):
        raise InvalidArgumentError(None, None, f"{op}: pooling_ratio entries must be >= 1.0, "
                                   f"got {ratio}.")
    b, h, w, c = x.shape
    oh, ow = int(h // ratio[1]), int(w // ratio[2])
    if oh < 1 or ow < 1:
        raise InvalidArgumentError(None, None, f"{op}: the output would be empty ({oh} x {ow})"
                                   f" for an input of {h} x {w} and pooling_ratio {ratio}.")
    gen = torch.Generator()
    if seed or seed2:
        gen.manual_seed((int(seed) * 1000003 + int(seed2)) & 0x7FFFFFFFFFFFFFFF)
    else:
        gen.seed()
    rows = _pooling_sequence(h, oh, pseudo_random, gen)
    cols = _pooling_sequence(w, ow, pseudo_random, gen)
    xf = x.to(torch.float64) if kind == "avg" else x
    out = torch.empty((b, oh, ow, c), dtype=xf.dtype, device=x.device)
    for i in range(oh):
        r0, r1 = rows[i], rows[i + 1] + (1 if overlapping else 0)
        r1 = min(r1, h)
        for j in range(ow):
            c0, c1 = cols[j], min(cols[j + 1] + (1 if overlapping else 0), w)
            region = xf[:, r0:r1, c0:c1, :]
            out[:, i, j, :] = region.amax(dim=(1, 2)) if kind == "max" else region.mean((1, 2))
    return (out.to(x.dtype), torch.tensor(rows, dtype=torch.int64),
            torch.tensor(cols, dtype=torch.int64))


def fractional_max_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                        overlapping: bool = False, seed: int = 0,
                        name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Fractional max pooling of an NHWC `value` (TF's `tf.nn.fractional_max_pool`): the rows
    and columns are split into `floor(size / ratio)` regions of random sizes (TF's pooling
    sequence algorithm; `pseudo_random` draws one offset instead of a shuffle), each pooled
    by its max; `overlapping` lets a region also take the next boundary. The random draws are
    torch's (seeded by `seed` when it is nonzero), not TF's kernel's.

    Returns:
        A tuple (output, row_pooling_sequence, col_pooling_sequence), the sequences int64.
    """
    return _fractional_pool("max", value, pooling_ratio, pseudo_random, overlapping, seed)


def fractional_avg_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                        overlapping: bool = False, seed: int = 0,
                        name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Fractional average pooling of an NHWC `value` (TF's `tf.nn.fractional_avg_pool`); as
    `fractional_max_pool` with each region averaged.

    Returns:
        A tuple (output, row_pooling_sequence, col_pooling_sequence), the sequences int64.
    """
    return _fractional_pool("avg", value, pooling_ratio, pseudo_random, overlapping, seed)


def fractional_max_pool_v1(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                           overlapping: bool = False, deterministic: bool = False,
                           seed: int = 0, seed2: int = 0, name: str | None = None
                           ) -> tuple[Tensor, Tensor, Tensor]:
    """TF1's `tf.compat.v1.nn.fractional_max_pool` (with `deterministic`, `seed`, `seed2`).

    Returns:
        A tuple (output, row_pooling_sequence, col_pooling_sequence).
    """
    return _fractional_pool("max", value, pooling_ratio, pseudo_random, overlapping, seed,
                            seed2)


def fractional_avg_pool_v1(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                           overlapping: bool = False, deterministic: bool = False,
                           seed: int = 0, seed2: int = 0, name: str | None = None
                           ) -> tuple[Tensor, Tensor, Tensor]:
    """TF1's `tf.compat.v1.nn.fractional_avg_pool` (with `deterministic`, `seed`, `seed2`).

    Returns:
        A tuple (output, row_pooling_sequence, col_pooling_sequence).
    """
    return _fractional_pool("avg", value, pooling_ratio, pseudo_random, overlapping, seed,
                            seed2)


# ----------------------------------------------------------------------------- isotonic
