"""tf.image's stateless random adjustments (seeded by a shape-[2] `seed`: the same seed gives
the same result; TF's value distribution, not its bits) and the JPEG-quality ops."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import torch

from torchestimator._ops import image_ops as _io
from torchestimator._ops.convert import convert_to_tensor
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor


def stateless_random_contrast(image: Any, lower: float, upper: float, seed: Any) -> Tensor:
    """Adjusts the contrast of images by a factor drawn uniformly from [lower, upper),
    deterministically given `seed` (shape [2]).

    Returns:
        The contrast-adjusted image(s), of the input's dtype.
    """
    _io._check_bounds(lower, upper)
    image = _io._image(image, "stateless_random_contrast")
    factor = _io._scalar_draw(lower, upper, seed, "stateless_random_contrast",
                              stateless=True)
    return _io.adjust_contrast(image, factor)


def stateless_random_saturation(image: Any, lower: float, upper: float,
                                seed: Any = None) -> Tensor:
    """Adjusts the saturation of RGB images by a factor drawn uniformly from [lower, upper),
    deterministically given `seed` (shape [2]; required, as in TF).

    Returns:
        The saturation-adjusted image(s), of the input's dtype.
    """
    _io._check_bounds(lower, upper)
    if seed is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(<class 'NoneType'>) to a Tensor: stateless_random_saturation needs "
                         "a `seed` of shape [2].")
    image = _io._image(image, "stateless_random_saturation")
    factor = _io._scalar_draw(lower, upper, seed, "stateless_random_saturation",
                              stateless=True)
    return _io.adjust_saturation(image, factor)


def stateless_random_hue(image: Any, max_delta: float, seed: Any) -> Tensor:
    """Adjusts the hue of RGB images by a delta drawn uniformly from [-max_delta, max_delta)
    (`max_delta` in [0, 0.5]), deterministically given `seed` (shape [2]).

    Returns:
        The hue-adjusted image(s), of the input's dtype.
    """
    if max_delta > 0.5:
        raise ValueError(f"max_delta must be <= 0.5, got {max_delta!r}.")
    if max_delta < 0:
        raise ValueError(f"max_delta must be non-negative, got {max_delta!r}.")
    image = _io._image(image, "stateless_random_hue")
    delta = _io._scalar_draw(-max_delta, max_delta, seed, "stateless_random_hue",
                             stateless=True)
    return _io.adjust_hue(image, delta)


def stateless_random_crop(value: Any, size: Any, seed: Any, name: str | None = None) -> Tensor:
    """Randomly crops a tensor of any rank to `size` (one entry per dimension), the offset
    drawn uniformly and deterministically given `seed` (shape [2]).

    Returns:
        A tensor of shape `size` and `value`'s dtype.
    """
    value = _io._image(value, "stateless_random_crop")
    if isinstance(size, (Tensor, np.ndarray)):
        size = size.tolist()
    size = [int(s) for s in (size if isinstance(size, (list, tuple)) else [size])]
    shape = list(value.shape)
    if len(size) != len(shape):
        raise InvalidArgumentError(
            None, None, f"stateless_random_crop: incompatible shapes {shape} and {size}: `size` "
            "needs one entry per dimension of `value`.")
    if any(s > d for s, d in zip(size, shape)) or any(s < 0 for s in size):
        raise InvalidArgumentError(None, None, f"Need value.shape >= size, got {shape} and "
                                   f"{size}.")
    gen = _io._stateless(seed, "stateless_random_crop")
    limit = torch.tensor([d - s + 1 for d, s in zip(shape, size)])
    offsets = (torch.randint(0, 2**31 - 1, (len(shape),), generator=gen) % limit).tolist()
    return value[tuple(slice(o, o + s) for o, s in zip(offsets, size))]


# ---------------------------------------------------------------------------- JPEG
def _quality(value: Any) -> int:
    q = int(value.item() if isinstance(value, (Tensor, np.ndarray, np.generic)) else value)
    if not 0 <= q <= 100:
        raise InvalidArgumentError(None, None, f"adjust_jpeg_quality: quality must be in [0,100], "
                                   f"got {q}")
    return q


def adjust_jpeg_quality(image: Any, jpeg_quality: Any, name: str | None = None) -> Tensor:
    """Re-encodes a 3-D image (1 or 3 channels) as JPEG with `jpeg_quality` (0-100) and decodes
    it back, adding JPEG's compression artifacts (Pillow's libjpeg; close to, not bit-equal to,
    TF's decoder).

    Returns:
        The image, of the input's dtype and shape.
    """
    img = _io._image(image, "adjust_jpeg_quality")
    if img.dim() != 3:
        raise InvalidArgumentError(None, None, f"adjust_jpeg_quality: image must be "
                                   f"3-dimensional{list(img.shape)}")
    if img.shape[-1] not in (1, 3):
        raise InvalidArgumentError(None, None, f"adjust_jpeg_quality: image must have 1 or 3 "
                                   f"channels, got {list(img.shape)}")
    quality = _quality(jpeg_quality)
    u8 = _io.convert_image_dtype(img, torch.uint8, saturate=True)
    pil = _io._pil()
    array = u8.detach().cpu().numpy()
    buffer = io.BytesIO()
    pil.fromarray(array[:, :, 0] if array.shape[-1] == 1 else array).save(
        buffer, format="JPEG", quality=quality, subsampling=2)
    decoded = _io._decode(buffer.getvalue(), int(array.shape[-1]), "adjust_jpeg_quality")
    return _io.convert_image_dtype(decoded.to(img.device), img.dtype)


def _check_quality_range(low: Any, high: Any) -> None:
    if low < 0 or high < 0 or low > 100 or high > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if low >= high:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


def random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int,
                        seed: int | None = None) -> Tensor:
    """`adjust_jpeg_quality` with a quality drawn uniformly from
    [min_jpeg_quality, max_jpeg_quality).

    Returns:
        The image, of the input's dtype and shape.
    """
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    gen = _io._op_seed_generator(seed, torch.device("cpu"), "random_jpeg_quality")
    q = int(torch.randint(int(min_jpeg_quality), int(max_jpeg_quality), (), generator=gen))
    return adjust_jpeg_quality(image, q)


def stateless_random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int,
                                  seed: Any) -> Tensor:
    """`random_jpeg_quality`, deterministic given `seed` (shape [2]).

    Returns:
        The image, of the input's dtype and shape.
    """
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    gen = _io._stateless(seed, "stateless_random_jpeg_quality")
    q = int(torch.randint(int(min_jpeg_quality), int(max_jpeg_quality), (), generator=gen))
    return adjust_jpeg_quality(image, q)


def is_jpeg(contents: Any, name: str | None = None) -> Tensor:
    """Checks whether `contents` (encoded bytes) start with the JPEG signature `FF D8 FF`.

    Returns:
        A scalar bool tensor.
    """
    data = _io._bytes(contents, "is_jpeg")
    return torch.tensor(data[:3] == b"\xff\xd8\xff")


def extract_jpeg_shape(contents: Any, output_type: Any = torch.int32,
                       name: str | None = None) -> Tensor:
    """Extracts the shape `[height, width, channels]` of a JPEG image from its header, without
    decoding it.

    Returns:
        A 1-D tensor of `output_type` (int32 or int64).
    """
    data = _io._bytes(contents, "extract_jpeg_shape")
    pil = _io._pil()
    try:
        img = pil.open(io.BytesIO(data))
        if img.format != "JPEG":
            raise ValueError("not a JPEG file")
    except Exception:
        raise InvalidArgumentError(None, None, f"Invalid JPEG data, size {len(data)} "
                                   "(extract_jpeg_shape)") from None
    channels = len(img.getbands())
    dtype = convert_to_tensor(0, dtype=output_type).dtype
    return torch.tensor([img.height, img.width, channels], dtype=dtype)


def decode_and_crop_jpeg(contents: Any, crop_window: Any, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "",
                         name: str | None = None) -> Tensor:
    """Decodes a JPEG image and crops it to `crop_window` `[crop_y, crop_x, crop_height,
    crop_width]` (TF decodes only that window; here the whole image is decoded, then cropped).

    Returns:
        A uint8 tensor `[crop_height, crop_width, channels]`.
    """
    window = [int(v) for v in np.asarray(
        crop_window.tolist() if isinstance(crop_window, Tensor) else crop_window).reshape(-1)]
    if len(window) != 4:
        raise InvalidArgumentError(None, None, f"decode_and_crop_jpeg: crop_window must be "
                                   f"[y, x, height, width], got {window}.")
    image = _io.decode_jpeg(contents, channels=channels)
    y, x, h, w = window
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > image.shape[0] or x + w > image.shape[1]:
        raise InvalidArgumentError(None, None, "jpeg::Uncompress failed. Invalid JPEG data or "
                                   f"crop window: {window} for an image of shape "
                                   f"{list(image.shape)} (decode_and_crop_jpeg).")
    return image[y:y + h, x:x + w].clone()
