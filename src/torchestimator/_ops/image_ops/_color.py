"""tf.image's dtype conversion and color / value ops: convert_image_dtype, standardization,
brightness, contrast, gamma, grayscale, HSV, saturation, hue and their random forms."""

from __future__ import annotations

import math
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.image_ops._common import (
    _HOST,
    Tensor,
    _cast,
    _image,
    _is_integer,
    _max,
    _op_seed_generator,
    _rank_error,
    _saturate_cast,
    _stateless,
    _uniform,
)
from torchestimator.errors import InvalidArgumentError


def _float_image(image: Tensor) -> Tensor:
    """float16/float32 stay; other dtypes go to float32 via `convert_image_dtype` (as TF)."""
    if image.dtype in (torch.float16, torch.float32):
        return image
    return convert_image_dtype(image, torch.float32)


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


def _scalar_draw(low: float, high: float, seed: Any, op: str, stateless: bool = False) -> float:
    """A number drawn uniformly from [low, high) on the host: for an image on a GPU nothing is
    read back from it, and a stateless seed draws the same number on every device."""
    gen = _stateless(seed, op) if stateless else _op_seed_generator(seed, _HOST, op)
    return float(_uniform((), low, high, gen, _HOST))


def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """Adjusts the brightness of images by a random delta drawn uniformly from
    [-max_delta, max_delta) (TF's `tf.image.random_brightness`).

    Returns:
        The brightness-adjusted image(s), of the input's dtype.
    """
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative, got {max_delta!r}.")
    image = _image(image, "random_brightness")
    delta = _scalar_draw(-max_delta, max_delta, seed, "random_brightness")
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
    delta = _scalar_draw(-max_delta, max_delta, seed, "stateless_random_brightness",
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
    factor = _scalar_draw(lower, upper, seed, "random_contrast")
    return adjust_contrast(image, factor)


def random_saturation(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """Adjusts the saturation of RGB images by a random factor drawn uniformly from
    [lower, upper) (TF's `tf.image.random_saturation`).

    Returns:
        The saturation-adjusted image(s), of the input's dtype.
    """
    _check_bounds(lower, upper)
    image = _image(image, "random_saturation")
    factor = _scalar_draw(lower, upper, seed, "random_saturation")
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
    delta = _scalar_draw(-max_delta, max_delta, seed, "random_hue")
    return adjust_hue(image, delta)
