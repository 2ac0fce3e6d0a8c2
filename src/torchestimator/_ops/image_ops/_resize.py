"""tf.image's resizing with TF 2.x's kernels (half-pixel bilinear / nearest, Keys bicubic, exact
area, scale_and_translate filters): resize, resize_with_pad, ResizeMethod."""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._ops.convert import dtype_name
from torchestimator._ops.image_ops._common import (
    _NOT_IMAGE_DTYPES,
    Tensor,
    _as_batch,
    _int_arg,
    _unbatch,
)
from torchestimator._ops.image_ops._geometry import pad_to_bounding_box
from torchestimator.errors import InvalidArgumentError


class ResizeMethod:
    """The resize methods of `tf.image.resize` (TF 2.x's `tf.image.ResizeMethod`)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# ---------------------------------------------------------------------------- resize kernels
def _lanczos(radius: float):
    def kernel(x: Tensor) -> Tensor:
        pix = math.pi * x
        value = radius * torch.sin(pix) * torch.sin(pix / radius) / (pix * pix).clamp_min(1e-30)
        value = torch.where(x <= 1e-3, torch.ones_like(x), value)
        return torch.where(x > radius, torch.zeros_like(x), value)

    return kernel


def _gaussian(x: Tensor) -> Tensor:
    sigma = 0.5
    return torch.where(x >= 1.5, torch.zeros_like(x), torch.exp(-x * x / (2.0 * sigma * sigma)))


def _triangle(x: Tensor) -> Tensor:
    return (1.0 - x).clamp_min(0.0)


def _keys_cubic(x: Tensor) -> Tensor:
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return torch.where(x >= 2.0, torch.zeros_like(x), torch.where(x >= 1.0, far, near))


def _mitchell_cubic(x: Tensor) -> Tensor:
    near = (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0
    far = (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return torch.where(x >= 2.0, torch.zeros_like(x), torch.where(x >= 1.0, far, near))


# TF's scale_and_translate kernels: name -> (radius, function of |x|).
_KERNELS = {
    "lanczos3": (3.0, _lanczos(3.0)),
    "lanczos5": (5.0, _lanczos(5.0)),
    "gaussian": (1.5, _gaussian),
    "triangle": (1.0, _triangle),
    "keyscubic": (2.0, _keys_cubic),
    "mitchellcubic": (2.0, _mitchell_cubic),
}
_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
            "mitchellcubic")
_FLT_MIN = float(np.finfo(np.float32).tiny)


def _f32(value: Any) -> Tensor:
    return torch.as_tensor(value, dtype=torch.float32)


@functools.lru_cache(maxsize=256)
def _scale_and_translate_taps(in_size: int, out_size: int, kernel_name: str,
                              antialias: bool) -> tuple[Tensor, Tensor]:
    """TF's `ScaleAndTranslate` spans along one axis: `(index [out, K], weight [out, K])`."""
    radius, kernel = _KERNELS[kernel_name]
    scale = _f32(out_size) / _f32(in_size)
    inv_scale = (1.0 / scale.double()).float()
    kernel_scale = torch.clamp(inv_scale, min=1.0) if antialias else _f32(1.0)
    span = min(2 * math.ceil(radius * kernel_scale.item()) + 1, in_size)
    sample = (torch.arange(out_size, dtype=torch.float32) + 0.5) * inv_scale
    reach = _f32(radius) * kernel_scale
    start = torch.ceil(sample - reach - 0.5).clamp(0, in_size - 1).long()
    end = torch.floor(sample + reach - 0.5).clamp(0, in_size - 1).long() + 1
    index = start[:, None] + torch.arange(span)[None, :]
    pos = index.float() + 0.5 - sample[:, None]
    weight = kernel(torch.abs(pos * (1.0 / kernel_scale)))
    weight = torch.where(index < end[:, None], weight, torch.zeros_like(weight))
    total = weight.sum(1, keepdim=True)
    weight = torch.where(total.abs() >= 1000.0 * _FLT_MIN, weight / total, weight)
    outside = (sample < 0) | (sample > in_size)  # TF samples nothing outside the image
    weight[outside] = 0.0
    return index.clamp(max=in_size - 1), weight


def _keys_table(x: Tensor) -> tuple[Tensor, Tensor]:
    """TF's bicubic coefficient table (a = -0.5) at x in [0, 1]: (weight at x, weight at x + 1)."""
    a = -0.5
    x = x.double()
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1.0
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return near.float(), far.float()


@functools.lru_cache(maxsize=256)
def _bicubic_taps(in_size: int, out_size: int) -> tuple[Tensor, Tensor]:
    """TF's `ResizeBicubic` (half-pixel centers, Keys a = -0.5, a 1024-entry coefficient table,
    weights outside the image dropped and the rest renormalized)."""
    table_size = 1024
    scale = _f32(in_size) / _f32(out_size)
    loc = (torch.arange(out_size, dtype=torch.float32) + 0.5) * scale - 0.5
    base = torch.floor(loc)
    offset = torch.round((loc - base) * table_size)  # lrintf: ties to even, as torch.round
    near_d, far_d = _keys_table(offset / table_size)
    near_r, far_r = _keys_table((table_size - offset) / table_size)
    weight = torch.stack([far_d, near_d, near_r, far_r], 1)
    index = base.long()[:, None] + torch.arange(-1, 3)[None, :]
    inside = (index >= 0) & (index < in_size)
    weight = torch.where(inside, weight, torch.zeros_like(weight))
    total = weight.sum(1, keepdim=True)
    weight = torch.where(total.abs() >= 1000.0 * _FLT_MIN, weight / total, weight)
    return index.clamp(0, in_size - 1), weight


@functools.lru_cache(maxsize=256)
def _area_taps(in_size: int, out_size: int) -> tuple[Tensor, Tensor]:
    """TF's `ResizeArea`: each output cell averages the input cells it covers, weighted by the
    covered fraction."""
    scale = _f32(in_size) / _f32(out_size)
    out = torch.arange(out_size, dtype=torch.float32)
    lo, hi = out * scale, (out + 1) * scale
    start = torch.floor(lo)
    span = math.ceil(in_size / out_size) + 2
    cell = start[:, None] + torch.arange(span, dtype=torch.float32)[None, :]
    covered = torch.minimum(cell + 1, hi[:, None]) - torch.maximum(cell, lo[:, None])
    weight = covered.clamp_min(0.0) * (1.0 / scale)
    return cell.long().clamp(0, in_size - 1), weight


@functools.lru_cache(maxsize=256)
def _nearest_index(in_size: int, out_size: int) -> Tensor:
    """TF's `ResizeNearestNeighbor` with half-pixel centers: floor((out + 0.5) * in / out)."""
    scale = _f32(in_size) / _f32(out_size)
    loc = torch.floor((torch.arange(out_size, dtype=torch.float32) + 0.5) * scale)
    return loc.long().clamp(0, in_size - 1)


@functools.lru_cache(maxsize=256)
def _resize_matrix(in_size: int, out_size: int, method: str, antialias: bool) -> Tensor:
    """The `[out_size, in_size]` resampling matrix of one axis (a few taps per row)."""
    if method == "area":
        index, weight = _area_taps(in_size, out_size)
    elif method == "bicubic" and not antialias:
        index, weight = _bicubic_taps(in_size, out_size)
    else:
        kernel = {"bilinear": "triangle", "bicubic": "keyscubic"}.get(method, method)
        index, weight = _scale_and_translate_taps(in_size, out_size, kernel, antialias)
    return torch.zeros(out_size, in_size).scatter_add_(1, index, weight)


def _resize_size(size: Any) -> tuple[int, int]:
    if isinstance(size, (Tensor, np.ndarray)):
        if size.dtype.is_floating_point if isinstance(size, Tensor) else size.dtype.kind == "f":
            raise ValueError("'size' must be a 1-D int32 Tensor")
        size = size.tolist()
    try:
        values = list(size)
    except TypeError:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width") \
            from None
    if len(values) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if any(isinstance(v, (float, np.floating)) or isinstance(v, builtins.bool) for v in values):
        raise ValueError("'size' must be a 1-D int32 Tensor")
    return int(values[0]), int(values[1])


def _resize_nhwc(images: Tensor, height: int, width: int, method: str, antialias: bool) -> Tensor:
    """Resizes an NHWC batch to (height, width) with TF's kernels (the shared implementation)."""
    if method == "nearest":
        out = images.index_select(1, _nearest_index(images.shape[1], height).to(images.device))
        return out.index_select(2, _nearest_index(images.shape[2], width).to(images.device))
    x = images if images.dtype is torch.float32 else images.to(torch.float32)
    if method == "bilinear" and not antialias:
        # TF's ResizeBilinear with half-pixel centers is torch's align_corners=False.
        y = F.interpolate(x.permute(0, 3, 1, 2), size=(height, width), mode="bilinear",
                          align_corners=False)
        return y.permute(0, 2, 3, 1).contiguous()  # (channels-last memory: no copy)
    # Separable resampling as two matrix products over the channels-first view: rows, then
    # columns (dense products of the banded matrices beat per-tap gathers on CPU and GPU).
    rows = _resize_matrix(x.shape[1], height, method, bool(antialias)).to(x.device)
    cols = _resize_matrix(x.shape[2], width, method, bool(antialias)).to(x.device)
    y = torch.matmul(torch.matmul(rows, x.permute(0, 3, 1, 2)), cols.t())
    return y.permute(0, 2, 3, 1).contiguous()


def resize(images: Any, size: Any, method: str = ResizeMethod.BILINEAR,
           preserve_aspect_ratio: bool = False, antialias: bool = False,
           name: str | None = None) -> Tensor:
    """Resizes `images` to `size` using the specified `method` (TF 2.x's `tf.image.resize`).

    Args:
        images: a 4-D `[batch, height, width, channels]` or 3-D `[height, width,
            channels]` tensor.
        size: `[new_height, new_width]` (two integers).
        method: a `ResizeMethod` ("bilinear", "nearest", "bicubic", "area",
            "lanczos3", "lanczos5", "gaussian", "mitchellcubic").
        preserve_aspect_ratio: fit inside `size` keeping the aspect ratio.
        antialias: low-pass filter when downsampling (bilinear, bicubic and the
            scale-and-translate kernels; nearest and area ignore it, as TF).

    Returns:
        The resized images, of the input's rank: float32, except for "nearest",
        which keeps the input dtype.
    """
    method = method.lower() if isinstance(method, str) else method
    if method not in _METHODS:
        raise ValueError(f"Resize method is not implemented: {method}")
    images, batched = _as_batch(images, "resize")
    if images.dtype in _NOT_IMAGE_DTYPES:
        raise InvalidArgumentError(
            None, None, f"resize: images of dtype {dtype_name(images.dtype)} are not supported; "
            "pass an integer or floating image."
        )
    height, width = _resize_size(size)
    in_h, in_w = images.shape[1], images.shape[2]
    if preserve_aspect_ratio:
        factor = min(np.float32(height) / np.float32(in_h), np.float32(width) / np.float32(in_w))
        height = int(np.round(np.float32(factor * np.float32(in_h))))
        width = int(np.round(np.float32(factor * np.float32(in_w))))
    if height <= 0 or width <= 0:
        raise InvalidArgumentError(
            None, None, f"resize: output dimensions must be positive, got size [{height}, {width}]."
        )
    if in_h == 0 or in_w == 0:
        raise InvalidArgumentError(
            None, None, f"resize: input image must be of non-zero size, got shape "
            f"{list(images.shape)}."
        )
    if images.shape[3] == 0:
        raise InvalidArgumentError(None, None, "resize: image must have at least one channel.")
    return _unbatch(_resize_nhwc(images, height, width, method, antialias), batched)


def resize_with_pad(image: Any, target_height: int, target_width: int,
                    method: str = ResizeMethod.BILINEAR, antialias: bool = False) -> Tensor:
    """Resizes and pads an image to a target width and height, keeping the aspect ratio
    (TF's `tf.image.resize_with_pad`).

    Returns:
        The resized and zero-padded images, float32 unless `method` is "nearest".
    """
    images, batched = _as_batch(image, "resize_with_pad")
    target_height = _int_arg(target_height, "target_height", "resize_with_pad")
    target_width = _int_arg(target_width, "target_width", "resize_with_pad")
    if target_width <= 0:
        raise ValueError("target_width must be > 0.")
    if target_height <= 0:
        raise ValueError("target_height must be > 0.")
    f32 = np.float32
    height, width = f32(images.shape[1]), f32(images.shape[2])
    ratio = max(width / f32(target_width), height / f32(target_height))
    resized_h, resized_w = height / ratio, width / ratio
    pad_h = max(0, int(np.floor((f32(target_height) - resized_h) / f32(2))))
    pad_w = max(0, int(np.floor((f32(target_width) - resized_w) / f32(2))))
    resized = resize(images, [int(np.floor(resized_h)), int(np.floor(resized_w))], method,
                     antialias=antialias)
    padded = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
    return _unbatch(padded, batched)
