"""tf.image over torch (NHWC or HWC, as TF).

Images are `torch.Tensor`s laid out as TensorFlow lays them out: a batch is
`[batch, height, width, channels]` (NHWC), a single image `[height, width,
channels]` (HWC); every op takes both and returns the same rank. Values follow
TF's conventions: floating images are in [0, 1], integer images use their
dtype's full range (`convert_image_dtype` maps one to the other).

Resizing reproduces TF 2.x's kernels rather than torch's: `bilinear` and
`nearest` use half-pixel centers (torch's `align_corners=False` /
`nearest-exact`), `bicubic` is Keys' cubic with a = -0.5 (torch uses -0.75),
`area` averages exact pixel coverage (torch's "area" is adaptive pooling,
which differs for non-integer factors), and `antialias=True` and the
`lanczos3/5`, `gaussian`, `mitchellcubic` methods follow TF's
`scale_and_translate` filter. Every method is a separable resampling: each
output row (then column) is a weighted sum of a few input rows. The weights
of an axis form a banded matrix, computed once per (sizes, method) and cached,
and resizing is two matrix products, differentiable and on any device.

The random ops (`random_flip_left_right`, `random_crop`, `random_brightness`,
...) seed as `tf.random`'s ops do: torch's default generator (which
`tf.random.set_seed` seeds) when `seed` is None, else a generator of their own
for the (global seed, op seed) pair, which advances on every call and restarts
on `set_seed`, as TF's eager ops do. The `stateless_random_*` ops are pure
functions of their `seed` pair. The values differ from TF's (another bit
generator).
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator import _dtypes
from torchestimator._ops import random_ops
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator.errors import InvalidArgumentError

__all__: list[str] = []  # TF has none of these at top level; tf.image imports them by name

Tensor = torch.Tensor

# The dtype `resize` refuses, as TF's kernels have no registration for them.
_NOT_IMAGE_DTYPES = (torch.bool, torch.complex64, torch.complex128)


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


# ---------------------------------------------------------------------------- helpers
def _image(image: Any, op: str) -> Tensor:
    value = convert_to_tensor(image)
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: images must be numeric tensors, got string values.")
    return value


def _rank_error(op: str, shape: Any, need: str) -> ValueError:
    return ValueError(f"{op}: 'image' (shape {tuple(shape)}) {need}")


def _check_rank(image: Tensor, op: str, ranks: tuple[int, ...] = (3, 4)) -> None:
    if image.dim() < 3:
        raise _rank_error(op, image.shape, "must be at least three-dimensional.")
    if image.dim() not in ranks:
        raise _rank_error(op, image.shape, "must have either 3 or 4 dimensions.")


def _as_batch(image: Any, op: str) -> tuple[Tensor, bool]:
    """Returns `(NHWC tensor, was_batched)`; raises for ranks other than 3 and 4."""
    image = _image(image, op)
    _check_rank(image, op)
    if image.dim() == 3:
        return image.unsqueeze(0), False
    return image, True


def _unbatch(image: Tensor, was_batched: bool) -> Tensor:
    return image if was_batched else image.squeeze(0)


def _is_integer(dtype: torch.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex or dtype is torch.bool)


def _max(dtype: torch.dtype) -> float | int:
    return torch.iinfo(dtype).max if _is_integer(dtype) else torch.finfo(dtype).max


def _min(dtype: torch.dtype) -> float | int:
    return torch.iinfo(dtype).min if _is_integer(dtype) else torch.finfo(dtype).min


def _cast(x: Tensor, dtype: torch.dtype) -> Tensor:
    """TF's (C++) cast: floats truncate toward zero, integers wrap around."""
    if x.dtype is dtype:
        return x
    if x.dtype.is_floating_point and _is_integer(dtype) and dtype is not torch.int64:
        return x.to(torch.int64).to(dtype)  # truncate, then wrap (defined, as TF's)
    return x.to(dtype)


def _saturate_cast(x: Tensor, dtype: torch.dtype) -> Tensor:
    """TF's `saturate_cast`: clamps to `dtype`'s range (limits taken in `x`'s dtype) and casts."""
    lo_in, hi_in, lo_out, hi_out = _min(x.dtype), _max(x.dtype), _min(dtype), _max(dtype)
    if lo_in < lo_out or hi_in > hi_out:
        np_dtype = torch.empty((), dtype=x.dtype).numpy().dtype if x.dtype is not torch.bfloat16 \
            else np.dtype(np.float32)
        lo = np_dtype.type(max(lo_in, lo_out))
        if float(lo) < lo_out:  # the limit rounded outside the range: step back inside
            lo = np.nextafter(lo, np_dtype.type(0), dtype=np_dtype)
        hi = np_dtype.type(min(hi_in, hi_out))
        if float(hi) > hi_out:
            hi = np.nextafter(hi, np_dtype.type(0), dtype=np_dtype)
        x = x.clamp(lo.item(), hi.item())
    return _cast(x, dtype)


def _op_seed_generator(seed: Any, device: torch.device, op: str) -> torch.Generator | None:
    """The generator for an op `seed` (None: torch's default generator), as tf.random's ops."""
    return random_ops._op_generator(op, seed, device)


def _stateless(seed: Any, device: torch.device, op: str) -> torch.Generator:
    return random_ops._stateless_generator(seed, op, device)


def _uniform(shape: tuple, low: float, high: float, gen: torch.Generator | None,
             device: torch.device) -> Tensor:
    return torch.rand(shape, generator=gen, device=device) * (high - low) + low


def _int_arg(value: Any, name: str, op: str) -> int:
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        if np.ndim(value) != 0:
            raise ValueError(f"{op}: `{name}` must be a scalar integer, got {value!r}.")
        value = value.item()
    if isinstance(value, builtins.bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}: `{name}` must be an integer, got {value!r}.")
    return int(value)


def _box(op: str, offset_height: Any, offset_width: Any, target_height: Any,
         target_width: Any) -> tuple[int, int, int, int]:
    names = ("offset_height", "offset_width", "target_height", "target_width")
    values = (offset_height, offset_width, target_height, target_width)
    oh, ow, th, tw = (_int_arg(v, n, op) for v, n in zip(values, names))
    return oh, ow, th, tw


def _float_image(image: Tensor) -> Tensor:
    """float16/float32 stay; other dtypes go to float32 via `convert_image_dtype` (as TF)."""
    if image.dtype in (torch.float16, torch.float32):
        return image
    return convert_image_dtype(image, torch.float32)


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


# ---------------------------------------------------------------------------- dtype conversion
def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False,
                        name: str | None = None) -> Tensor:
    """Converts `image` to `dtype`, scaling its values if needed (TF's
    `tf.image.convert_image_dtype`).

    Integer images use their dtype's full range and floating images [0, 1]:
    int -> float multiplies by `1 / dtype.max`; float -> int multiplies by
    `dtype.max + 0.5` and truncates (values outside [0, 1] wrap around unless
    `saturate=True` clamps them); int -> int shifts by the ratio of the ranges;
    float -> float is a cast.

    Returns:
        The converted image, of dtype `dtype`.
    """
    image = _image(image, "convert_image_dtype")
    dtype = _dtypes.as_dtype(dtype)
    if dtype is _dtypes.string or not (dtype.is_floating_point or _is_integer(dtype)):
        raise AttributeError("dtype must be either floating point or integer")
    if not (image.dtype.is_floating_point or _is_integer(image.dtype)):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype is image.dtype:
        return image
    if _is_integer(image.dtype) and _is_integer(dtype):
        scale_in, scale_out = _max(image.dtype), _max(dtype)
        if scale_in > scale_out:
            scaled = torch.div(image, (scale_in + 1) // (scale_out + 1), rounding_mode="floor")
            return _saturate_cast(scaled, dtype) if saturate else _cast(scaled, dtype)
        cast = _saturate_cast(image, dtype) if saturate else _cast(image, dtype)
        return cast * ((scale_out + 1) // (scale_in + 1))
    if image.dtype.is_floating_point and dtype.is_floating_point:
        return image.to(dtype)
    if _is_integer(image.dtype):
        cast = image.to(dtype)
        return cast * torch.tensor(1.0 / _max(image.dtype), dtype=dtype, device=image.device)
    scaled = image * torch.tensor(_max(dtype) + 0.5, dtype=image.dtype, device=image.device)
    return _saturate_cast(scaled, dtype) if saturate else _cast(scaled, dtype)


# ---------------------------------------------------------------------------- flips, rotations
def flip_left_right(image: Any) -> Tensor:
    """Flips an image horizontally (left to right) (TF's `tf.image.flip_left_right`).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "flip_left_right")
    _check_rank(image, "flip_left_right")
    return torch.flip(image, (-2,))


def flip_up_down(image: Any) -> Tensor:
    """Flips an image vertically (upside down) (TF's `tf.image.flip_up_down`).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "flip_up_down")
    _check_rank(image, "flip_up_down")
    return torch.flip(image, (-3,))


def _random_flip(image: Tensor, dim: int, gen: torch.Generator | None) -> Tensor:
    if image.dim() == 3:
        flip = torch.rand((), generator=gen, device=image.device) < 0.5
        return torch.flip(image, (dim,)) if bool(flip) else image
    flips = torch.rand((image.shape[0],), generator=gen, device=image.device) < 0.5
    return torch.where(flips.view(-1, 1, 1, 1), torch.flip(image, (dim,)), image)


def random_flip_left_right(image: Any, seed: int | None = None) -> Tensor:
    """Randomly flips an image horizontally (left to right), each image of a batch
    independently with probability 1/2 (TF's `tf.image.random_flip_left_right`).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "random_flip_left_right")
    _check_rank(image, "random_flip_left_right")
    gen = _op_seed_generator(seed, image.device, "random_flip_left_right")
    return _random_flip(image, -2, gen)


def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    """Randomly flips an image vertically (upside down), each image of a batch independently
    with probability 1/2 (TF's `tf.image.random_flip_up_down`).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "random_flip_up_down")
    _check_rank(image, "random_flip_up_down")
    return _random_flip(image, -3, _op_seed_generator(seed, image.device, "random_flip_up_down"))


def stateless_random_flip_left_right(image: Any, seed: Any) -> Tensor:
    """Randomly flips an image horizontally, deterministically given `seed` (shape [2])
    (TF's `tf.image.stateless_random_flip_left_right`; not TF's random values).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "stateless_random_flip_left_right")
    _check_rank(image, "stateless_random_flip_left_right")
    return _random_flip(image, -2, _stateless(seed, image.device, "stateless_random_flip"))


def stateless_random_flip_up_down(image: Any, seed: Any) -> Tensor:
    """Randomly flips an image vertically, deterministically given `seed` (shape [2])
    (TF's `tf.image.stateless_random_flip_up_down`; not TF's random values).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "stateless_random_flip_up_down")
    _check_rank(image, "stateless_random_flip_up_down")
    return _random_flip(image, -3, _stateless(seed, image.device, "stateless_random_flip"))


def rot90(image: Any, k: int = 1, name: str | None = None) -> Tensor:
    """Rotates image(s) counter-clockwise by 90 degrees `k` times (TF's `tf.image.rot90`).

    Returns:
        A rotated tensor of the same type as `image` (height and width swapped for odd `k`).
    """
    image = _image(image, "rot90")
    _check_rank(image, "rot90")
    k = _int_arg(k, "k", "rot90") % 4
    return torch.rot90(image, k, dims=(-3, -2))


def transpose(image: Any, name: str | None = None) -> Tensor:
    """Transposes image(s) by swapping the height and width dimension (TF's
    `tf.image.transpose`).

    Returns:
        The transposed image(s), of the same type.
    """
    image = _image(image, "transpose")
    _check_rank(image, "transpose")
    return image.transpose(-3, -2)


# ---------------------------------------------------------------------------- crops and pads
def central_crop(image: Any, central_fraction: float) -> Tensor:
    """Crops the central region of the image(s), keeping `central_fraction` of each side
    (TF's `tf.image.central_crop`).

    Returns:
        The cropped 3-D or 4-D image(s), of the input's dtype.
    """
    image = _image(image, "central_crop")
    fraction = float(central_fraction)
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError(f"central_fraction must be within (0, 1], got {central_fraction!r}")
    if image.dim() < 3:
        raise _rank_error("central_crop", image.shape, "must be at least three-dimensional.")
    if image.dim() not in (3, 4):
        raise ValueError(
            f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = "
            f"{image.dim()}."
        )
    if fraction == 1.0:
        return image
    height, width = image.shape[-3], image.shape[-2]
    top = int((float(height) - float(height) * fraction) / 2)
    left = int((float(width) - float(width) * fraction) / 2)
    return image[..., top:height - top, left:width - left, :]


def crop_to_bounding_box(image: Any, offset_height: int, offset_width: int, target_height: int,
                         target_width: int) -> Tensor:
    """Crops an image to a specified bounding box (TF's `tf.image.crop_to_bounding_box`).

    Returns:
        The `[..., target_height, target_width, channels]` crop whose top-left corner is
        at (`offset_height`, `offset_width`).
    """
    images, batched = _as_batch(image, "crop_to_bounding_box")
    op = "crop_to_bounding_box"
    oh, ow, th, tw = _box(op, offset_height, offset_width, target_height, target_width)
    height, width = images.shape[1], images.shape[2]
    if ow < 0:
        raise ValueError(f"offset_width must be >= 0, got {ow}.")
    if oh < 0:
        raise ValueError(f"offset_height must be >= 0, got {oh}.")
    if tw <= 0:
        raise ValueError(f"target_width must be > 0, got {tw}.")
    if th <= 0:
        raise ValueError(f"target_height must be > 0, got {th}.")
    if width < tw + ow:
        raise ValueError(f"width must be >= target + offset: {width} < {tw} + {ow}.")
    if height < th + oh:
        raise ValueError(f"height must be >= target + offset: {height} < {th} + {oh}.")
    return _unbatch(images[:, oh:oh + th, ow:ow + tw, :], batched)


def pad_to_bounding_box(image: Any, offset_height: int, offset_width: int, target_height: int,
                        target_width: int) -> Tensor:
    """Pads `image` with zeros to the specified `target_height` and `target_width`, placing it
    at (`offset_height`, `offset_width`) (TF's `tf.image.pad_to_bounding_box`).

    Returns:
        The `[..., target_height, target_width, channels]` padded image(s).
    """
    images, batched = _as_batch(image, "pad_to_bounding_box")
    op = "pad_to_bounding_box"
    oh, ow, th, tw = _box(op, offset_height, offset_width, target_height, target_width)
    after_w = tw - ow - images.shape[2]
    after_h = th - oh - images.shape[1]
    if oh < 0:
        raise ValueError(f"offset_height must be >= 0, got {oh}")
    if ow < 0:
        raise ValueError(f"offset_width must be >= 0, got {ow}")
    if after_w < 0:
        raise ValueError(
            f"width must be <= target - offset: {images.shape[2]} > {tw} - {ow}"
        )
    if after_h < 0:
        raise ValueError(
            f"height must be <= target - offset: {images.shape[1]} > {th} - {oh}"
        )
    padded = F.pad(images, (0, 0, ow, after_w, oh, after_h))
    return _unbatch(padded, batched)


def resize_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> Tensor:
    """Crops and/or pads an image to a target width and height, centered (TF's
    `tf.image.resize_with_crop_or_pad`).

    Returns:
        The `[..., target_height, target_width, channels]` image(s), of the input's dtype.
    """
    images, batched = _as_batch(image, "resize_with_crop_or_pad")
    op = "resize_with_crop_or_pad"
    th = _int_arg(target_height, "target_height", op)
    tw = _int_arg(target_width, "target_width", op)
    if tw <= 0:
        raise ValueError(f"target_width must be > 0, got {tw}.")
    if th <= 0:
        raise ValueError(f"target_height must be > 0, got {th}.")
    height, width = images.shape[1], images.shape[2]
    width_diff, height_diff = tw - width, th - height
    cropped = crop_to_bounding_box(
        images, max(-height_diff // 2, 0), max(-width_diff // 2, 0), min(th, height),
        min(tw, width),
    )
    padded = pad_to_bounding_box(cropped, max(height_diff // 2, 0), max(width_diff // 2, 0), th, tw)
    return _unbatch(padded, batched)


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """Randomly crops a tensor to a given size (TF's `tf.image.random_crop`): one uniformly
    drawn offset for the whole tensor, any rank (`size` has one entry per dimension).

    Returns:
        A cropped tensor of shape `size` and the same dtype as `value`.
    """
    value = _image(value, "random_crop")
    if isinstance(size, (Tensor, np.ndarray)):
        size = size.tolist()
    size = [int(s) for s in (size if isinstance(size, (list, tuple)) else [size])]
    shape = list(value.shape)
    if len(size) != len(shape):
        raise InvalidArgumentError(
            None, None, f"random_crop: incompatible shapes {shape} and {size}: `size` needs one "
            "entry per dimension of `value`."
        )
    if any(s > d for s, d in zip(size, shape)) or any(s < 0 for s in size):
        raise InvalidArgumentError(
            None, None, f"Need value.shape >= size, got {shape} and {size}."
        )
    limit = torch.tensor([d - s + 1 for d, s in zip(shape, size)])
    gen = _op_seed_generator(seed, torch.device("cpu"), "random_crop")
    offsets = (torch.randint(0, 2**31 - 1, (len(shape),), generator=gen) % limit).tolist()
    index = tuple(slice(o, o + s) for o, s in zip(offsets, size))
    return value[index]


# ---------------------------------------------------------------------------- color and value
def per_image_standardization(image: Any) -> Tensor:
    """Linearly scales each image to have mean 0 and variance 1 (TF's
    `tf.image.per_image_standardization`): `(x - mean) / max(stddev, 1 / sqrt(N))` over the
    last three dimensions, N their number of elements.

    Returns:
        A float32 tensor of the same shape as `image`.
    """
    image = _image(image, "per_image_standardization")
    if image.dim() < 3:
        raise _rank_error("per_image_standardization", image.shape,
                          "must be at least three-dimensional.")
    x = image.to(torch.float32)
    count = image.shape[-1] * image.shape[-2] * image.shape[-3]
    mean = x.mean(dim=(-1, -2, -3), keepdim=True)
    std = x.std(dim=(-1, -2, -3), keepdim=True, correction=0)
    adjusted = torch.clamp(std, min=1.0 / math.sqrt(count) if count else 0.0)
    return (x - mean) / adjusted


def adjust_brightness(image: Any, delta: Any) -> Tensor:
    """Adjusts the brightness of RGB or grayscale images by adding `delta` (in [0, 1] units for
    integer images, which are converted and saturated back) (TF's `tf.image.adjust_brightness`).

    Returns:
        The brightness-adjusted image(s), of the input's dtype.
    """
    image = _image(image, "adjust_brightness")
    flt = _float_image(image)
    delta = delta.to(flt.dtype) if isinstance(delta, Tensor) else float(delta)
    return convert_image_dtype(flt + delta, image.dtype, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> Tensor:
    """Adjusts the contrast of RGB or grayscale images: for each channel of each image,
    `(x - mean) * contrast_factor + mean`, the mean over height and width (TF's
    `tf.image.adjust_contrast`).

    Returns:
        The contrast-adjusted image(s), of the input's dtype.
    """
    images = _image(images, "adjust_contrast")
    if images.dim() < 3:
        raise InvalidArgumentError(
            None, None, f"adjust_contrast: input must be at least 3-D, got shape "
            f"{list(images.shape)}"
        )
    flt = _float_image(images)
    mean = flt.mean(dim=(-3, -2), keepdim=True)
    factor = contrast_factor.to(flt.dtype) if isinstance(contrast_factor, Tensor) \
        else float(contrast_factor)
    return convert_image_dtype((flt - mean) * factor + mean, images.dtype, saturate=True)


def adjust_gamma(image: Any, gamma: float = 1, gain: float = 1) -> Tensor:
    """Performs gamma correction: `gain * image ** gamma` in [0, 1] units (TF's
    `tf.image.adjust_gamma`).

    Returns:
        The gamma-corrected image(s), of the input's dtype.
    """
    image = _image(image, "adjust_gamma")
    if float(gamma) < 0:
        raise ValueError(f"Gamma should be a non-negative real number, got {gamma!r}.")
    flt = _float_image(image)
    return convert_image_dtype(gain * flt ** gamma, image.dtype, saturate=True)


def _check_rgb(images: Tensor, op: str) -> None:
    if images.dim() < 1 or images.shape[-1] != 3:
        raise InvalidArgumentError(
            None, None, f"{op}: the last dimension must be size 3 (RGB), got shape "
            f"{list(images.shape)}."
        )


def rgb_to_grayscale(images: Any, name: str | None = None) -> Tensor:
    """Converts one or more images from RGB to grayscale with the weights (0.2989, 0.5870,
    0.1140) (TF's `tf.image.rgb_to_grayscale`).

    Returns:
        The grayscale image(s), of the input's dtype, with a last dimension of size 1.
    """
    images = _image(images, "rgb_to_grayscale")
    _check_rgb(images, "rgb_to_grayscale")
    flt = convert_image_dtype(images, torch.float32)
    weights = torch.tensor([0.2989, 0.5870, 0.1140], dtype=torch.float32, device=flt.device)
    gray = torch.tensordot(flt, weights, dims=([-1], [0])).unsqueeze(-1)
    return convert_image_dtype(gray, images.dtype)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """Converts one or more images from grayscale to RGB by repeating the channel (TF's
    `tf.image.grayscale_to_rgb`).

    Returns:
        The RGB image(s), of the input's dtype, with a last dimension of size 3.
    """
    images = _image(images, "grayscale_to_rgb")
    if images.dim() < 2:
        raise ValueError(
            f"A grayscale image (shape {tuple(images.shape)}) must be at least two-dimensional."
        )
    if images.shape[-1] != 1:
        raise ValueError(
            f"Last dimension of a grayscale image should be size 1, got shape "
            f"{tuple(images.shape)}."
        )
    return images.expand(*images.shape[:-1], 3).clone()


def rgb_to_hsv(images: Any, name: str | None = None) -> Tensor:
    """Converts one or more floating images from RGB to HSV, all components in [0, 1] (TF's
    `tf.image.rgb_to_hsv`).

    Returns:
        The HSV image(s), of the input's (floating) dtype.
    """
    images = _image(images, "rgb_to_hsv")
    _check_rgb(images, "rgb_to_hsv")
    if not images.dtype.is_floating_point:
        raise TypeError(
            f"rgb_to_hsv: images must be floating (float16, float32, float64), got "
            f"{dtype_name(images.dtype)}; use tf.image.convert_image_dtype first."
        )
    return _rgb_to_hsv(images)


def _rgb_to_hsv(x: Tensor) -> Tensor:
    r, g, b = x.unbind(-1)
    value = torch.maximum(torch.maximum(r, g), b)
    spread = value - torch.minimum(torch.minimum(r, g), b)
    sat = torch.where(value > 0, spread / torch.where(value > 0, value, 1), 0)
    norm = (1.0 / 6.0) / torch.where(spread > 0, spread, 1)
    hue = torch.where(
        r == value, norm * (g - b),
        torch.where(g == value, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0),
    )
    hue = torch.where(spread > 0, hue, 0)
    hue = torch.where(hue < 0, hue + 1, hue)
    return torch.stack([hue, sat, value], -1)


def hsv_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """Converts one or more floating images from HSV to RGB (TF's `tf.image.hsv_to_rgb`).

    Returns:
        The RGB image(s), of the input's (floating) dtype.
    """
    images = _image(images, "hsv_to_rgb")
    _check_rgb(images, "hsv_to_rgb")
    if not images.dtype.is_floating_point:
        raise TypeError(
            f"hsv_to_rgb: images must be floating (float16, float32, float64), got "
            f"{dtype_name(images.dtype)}."
        )
    return _hsv_to_rgb(images)


def _hsv_to_rgb(x: Tensor) -> Tensor:
    hue, sat, value = x.unbind(-1)
    dh = hue * 6
    dr = ((dh - 3).abs() - 1).clamp(0, 1)
    dg = (2 - (dh - 2).abs()).clamp(0, 1)
    db = (2 - (dh - 4).abs()).clamp(0, 1)
    one_s = 1 - sat
    return torch.stack([(one_s + sat * dr) * value, (one_s + sat * dg) * value,
                        (one_s + sat * db) * value], -1)


def adjust_saturation(image: Any, saturation_factor: Any, name: str | None = None) -> Tensor:
    """Adjusts the saturation of RGB images: multiplies S in HSV space by `saturation_factor`
    and clips to [0, 1] (TF's `tf.image.adjust_saturation`).

    Returns:
        The saturation-adjusted image(s), of the input's dtype.
    """
    image = _image(image, "adjust_saturation")
    _check_rgb(image, "adjust_saturation")
    flt = _float_image(image).to(torch.float32)
    hsv = _rgb_to_hsv(flt)
    factor = saturation_factor.to(torch.float32) if isinstance(saturation_factor, Tensor) \
        else float(saturation_factor)
    sat = (hsv[..., 1] * factor).clamp(0, 1)
    rgb = _hsv_to_rgb(torch.stack([hsv[..., 0], sat, hsv[..., 2]], -1))
    if image.dtype is torch.float16:
        rgb = rgb.to(torch.float16)
    return convert_image_dtype(rgb, image.dtype)


def adjust_hue(image: Any, delta: float, name: str | None = None) -> Tensor:
    """Adjusts the hue of RGB images by rotating H in HSV space by `delta` (in [-1, 1]) (TF's
    `tf.image.adjust_hue`).

    Returns:
        The hue-adjusted image(s), of the input's dtype.
    """
    if not isinstance(delta, Tensor) and not -1 <= float(delta) <= 1:
        raise ValueError(f"delta must be in the interval [-1, 1], got {delta!r}")
    image = _image(image, "adjust_hue")
    _check_rgb(image, "adjust_hue")
    flt = _float_image(image).to(torch.float32)
    hsv = _rgb_to_hsv(flt)
    shift = delta.to(torch.float32) if isinstance(delta, Tensor) else float(delta)
    hue = torch.remainder(hsv[..., 0] + shift, 1.0)
    rgb = _hsv_to_rgb(torch.stack([hue, hsv[..., 1], hsv[..., 2]], -1))
    if image.dtype is torch.float16:
        rgb = rgb.to(torch.float16)
    return convert_image_dtype(rgb, image.dtype)


def _scalar_draw(low: float, high: float, seed: Any, device: torch.device, op: str,
                 stateless: bool = False) -> float:
    gen = _stateless(seed, device, op) if stateless else _op_seed_generator(seed, device, op)
    return float(_uniform((), low, high, gen, device))


def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """Adjusts the brightness of images by a random delta drawn uniformly from
    [-max_delta, max_delta) (TF's `tf.image.random_brightness`).

    Returns:
        The brightness-adjusted image(s), of the input's dtype.
    """
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative, got {max_delta!r}.")
    image = _image(image, "random_brightness")
    delta = _scalar_draw(-max_delta, max_delta, seed, image.device, "random_brightness")
    return adjust_brightness(image, delta)


def stateless_random_brightness(image: Any, max_delta: float, seed: Any) -> Tensor:
    """`random_brightness`, deterministic given `seed` (shape [2]) (TF's
    `tf.image.stateless_random_brightness`; not TF's random values).

    Returns:
        The brightness-adjusted image(s), of the input's dtype.
    """
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative, got {max_delta!r}.")
    image = _image(image, "stateless_random_brightness")
    delta = _scalar_draw(-max_delta, max_delta, seed, image.device, "stateless_random_brightness",
                         stateless=True)
    return adjust_brightness(image, delta)


def _check_bounds(lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError(f"upper must be > lower, got lower={lower!r}, upper={upper!r}.")
    if lower < 0:
        raise ValueError(f"lower must be non-negative, got {lower!r}.")


def random_contrast(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """Adjusts the contrast of images by a random factor drawn uniformly from [lower, upper)
    (TF's `tf.image.random_contrast`).

    Returns:
        The contrast-adjusted image(s), of the input's dtype.
    """
    _check_bounds(lower, upper)
    image = _image(image, "random_contrast")
    factor = _scalar_draw(lower, upper, seed, image.device, "random_contrast")
    return adjust_contrast(image, factor)


def random_saturation(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """Adjusts the saturation of RGB images by a random factor drawn uniformly from
    [lower, upper) (TF's `tf.image.random_saturation`).

    Returns:
        The saturation-adjusted image(s), of the input's dtype.
    """
    _check_bounds(lower, upper)
    image = _image(image, "random_saturation")
    factor = _scalar_draw(lower, upper, seed, image.device, "random_saturation")
    return adjust_saturation(image, factor)


def random_hue(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """Adjusts the hue of RGB images by a random delta drawn uniformly from
    [-max_delta, max_delta), `max_delta` in [0, 0.5] (TF's `tf.image.random_hue`).

    Returns:
        The hue-adjusted image(s), of the input's dtype.
    """
    if max_delta > 0.5:
        raise ValueError(f"max_delta must be <= 0.5, got {max_delta!r}.")
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative, got {max_delta!r}.")
    image = _image(image, "random_hue")
    delta = _scalar_draw(-max_delta, max_delta, seed, image.device, "random_hue")
    return adjust_hue(image, delta)


# ---------------------------------------------------------------------------- patches
def _four(value: Any, name: str) -> list[int]:
    values = [int(v) for v in value]
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise InvalidArgumentError(
            None, None, f"extract_patches: `{name}` must be [1, rows, cols, 1], got {value!r}."
        )
    return values


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str,
                    name: str | None = None) -> Tensor:
    """Extracts `sizes` patches from `images`, `strides` apart, sampling every `rates` pixels
    (TF's `tf.image.extract_patches`; padding "VALID" or "SAME").

    Returns:
        A `[batch, out_rows, out_cols, size_rows * size_cols * depth]` tensor, each patch
        flattened in (row, column, depth) order.
    """
    images = _image(images, "extract_patches")
    if images.dim() != 4:
        raise ValueError(
            f"extract_patches: images must be 4-D [batch, rows, cols, depth], got shape "
            f"{tuple(images.shape)}."
        )
    _, kh, kw, _ = _four(sizes, "sizes")
    _, sh, sw, _ = _four(strides, "strides")
    _, rh, rw, _ = _four(rates, "rates")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"extract_patches: padding must be 'VALID' or 'SAME', got {padding!r}.")
    n, height, width, depth = images.shape
    eff_h, eff_w = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    x = images.permute(0, 3, 1, 2)
    if padding == "SAME":
        out_h, out_w = -(-height // sh), -(-width // sw)
        pad_h = max((out_h - 1) * sh + eff_h - height, 0)
        pad_w = max((out_w - 1) * sw + eff_w - width, 0)
        x = F.pad(x, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))
    else:
        out_h, out_w = (height - eff_h) // sh + 1, (width - eff_w) // sw + 1
    if out_h <= 0 or out_w <= 0:
        return images.new_zeros((n, max(out_h, 0), max(out_w, 0), kh * kw * depth))
    # unfold works on floating tensors; integer images go through float64 (exact below 2**53).
    work = x if x.dtype.is_floating_point else x.to(torch.float64)
    cols = F.unfold(work, (kh, kw), dilation=(rh, rw), stride=(sh, sw))  # [N, C*kh*kw, L]
    cols = cols.reshape(n, depth, kh * kw, out_h, out_w).permute(0, 3, 4, 2, 1)
    return cols.reshape(n, out_h, out_w, kh * kw * depth).to(images.dtype)


# ---------------------------------------------------------------------------- codecs
def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(
            "Decoding and encoding images needs Pillow, a dependency of torchestimator that is "
            "missing from this environment: `pip install pillow`."
        ) from None
    return Image


def _bytes(contents: Any, op: str) -> bytes:
    if isinstance(contents, np.ndarray):
        if contents.ndim != 0:
            raise InvalidArgumentError(
                None, None, f"{op}: contents must be a scalar string, got shape "
                f"{list(contents.shape)}."
            )
        contents = contents.item()
    if isinstance(contents, str):
        raise TypeError(
            f"{op}: contents must be the encoded bytes (as tf.io.read_file returns), not a str."
        )
    if not isinstance(contents, (bytes, bytearray, memoryview)):
        raise TypeError(f"{op}: contents must be bytes, got {type(contents).__name__}.")
    return bytes(contents)


_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _decode(contents: Any, channels: int, op: str, dtype: torch.dtype = torch.uint8) -> Tensor:
    import io

    image_mod = _pil()
    try:
        img = image_mod.open(io.BytesIO(_bytes(contents, op)))
        img.load()
    except Exception as exc:  # PIL raises many kinds for broken data
        raise InvalidArgumentError(None, None, f"{op}: cannot decode the image: {exc}") from None
    if channels:
        if channels not in _MODES:
            raise ValueError(f"{op}: channels must be 0, 1, 2, 3 or 4, got {channels}.")
        img = img.convert(_MODES[channels])
    elif img.mode not in ("L", "LA", "RGB", "RGBA", "I;16"):
        img = img.convert("RGBA" if "A" in img.getbands() else "RGB")
    array = np.asarray(img)
    if array.ndim == 2:
        array = array[:, :, None]
    if array.dtype == np.uint16 or array.dtype.byteorder not in ("=", "|"):
        array = array.astype(np.uint16)
    if dtype is torch.uint8 and array.dtype != np.uint8:
        array = (array >> 8).astype(np.uint8)
    elif dtype is torch.uint16 and array.dtype == np.uint8:
        array = array.astype(np.uint16) * 257
    return torch.from_numpy(np.array(array, copy=True))


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name: str | None = None) -> Tensor:
    """Decodes a JPEG-encoded image to a uint8 tensor (TF's `tf.io.decode_jpeg`; needs Pillow).

    Returns:
        A uint8 `[height, width, channels]` tensor.
    """
    return _decode(contents, channels, "decode_jpeg")


def decode_png(contents: Any, channels: int = 0, dtype: Any = torch.uint8,
               name: str | None = None) -> Tensor:
    """Decodes a PNG-encoded image to a uint8 or uint16 tensor (TF's `tf.io.decode_png`; needs
    Pillow).

    Returns:
        A `[height, width, channels]` tensor of `dtype`.
    """
    return _decode(contents, channels, "decode_png", _dtypes.as_dtype(dtype))


def _encode(image: Any, fmt: str, op: str, channels: tuple[int, ...], **options: Any) -> bytes:
    import io

    image_mod = _pil()
    image = _image(image, op)
    if image.dim() != 3 or image.shape[-1] not in channels:
        raise InvalidArgumentError(
            None, None, f"{op}: image must be 3-D [height, width, channels] with "
            f"{' or '.join(map(str, channels))} channels, got shape {list(image.shape)}."
        )
    if image.dtype is not torch.uint8:
        raise InvalidArgumentError(
            None, None, f"{op}: image must be uint8, got {dtype_name(image.dtype)}; use "
            "tf.image.convert_image_dtype(image, tf.uint8, saturate=True)."
        )
    array = image.detach().cpu().numpy()
    pil = image_mod.fromarray(array[:, :, 0] if array.shape[-1] == 1 else array)
    buffer = io.BytesIO()
    pil.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def encode_jpeg(image: Any, format: str = "", quality: int = 95, progressive: bool = False,
                optimize_size: bool = False, chroma_downsampling: bool = True,
                density_unit: str = "in", x_density: int = 300, y_density: int = 300,
                xmp_metadata: str = "", name: str | None = None) -> bytes:
    """JPEG-encodes a uint8 `[height, width, channels]` image (TF's `tf.io.encode_jpeg`; needs
    Pillow).

    Returns:
        The encoded bytes (TF's scalar string tensor).
    """
    return _encode(image, "JPEG", "encode_jpeg", (1, 3), quality=int(quality),
                   progressive=progressive,
                   optimize=optimize_size, subsampling=-1 if chroma_downsampling else 0,
                   dpi=(x_density, y_density))


def encode_png(image: Any, compression: int = -1, name: str | None = None) -> bytes:
    """PNG-encodes a uint8 `[height, width, channels]` image (TF's `tf.io.encode_png`; needs
    Pillow).

    Returns:
        The encoded bytes (TF's scalar string tensor).
    """
    level = 6 if compression == -1 else int(compression)
    return _encode(image, "PNG", "encode_png", (1, 2, 3, 4), compress_level=level)
