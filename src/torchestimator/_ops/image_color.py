"""tf.image's linear color-space conversions: RGB <-> YIQ and RGB <-> YUV (TF's kernels)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.convert import dtype_name
from torchestimator._ops.image_ops import _image
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _convert(images: Any, kernel: list, op: str) -> Tensor:
    x = _image(images, op)
    if not (x.dtype.is_floating_point or x.is_complex()):
        raise TypeError(f"{op}: images must be a floating tensor, got {dtype_name(x.dtype)}; "
                        "use tf.image.convert_image_dtype(images, tf.float32) first.")
    if x.dim() < 1 or x.shape[-1] != 3:
        raise InvalidArgumentError(None, None, f"{op}: the last dimension of images must be 3, "
                                   f"got shape {list(x.shape)}.")
    k = torch.tensor(kernel, dtype=x.dtype, device=x.device)
    return torch.tensordot(x, k, dims=([-1], [0]))


def rgb_to_yiq(images: Any) -> Tensor:
    """Converts one or more images from RGB to YIQ (`images`' last dimension is 3; float).

    Returns:
        A tensor of the same shape and dtype: Y in [0, 1], I in [-0.5957, 0.5957],
        Q in [-0.5226, 0.5226].
    """
    return _convert(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images: Any) -> Tensor:
    """Converts one or more images from YIQ to RGB (the inverse of `rgb_to_yiq`).

    Returns:
        A tensor of the same shape and dtype.
    """
    return _convert(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images: Any) -> Tensor:
    """Converts one or more images from RGB to YUV (`images`' last dimension is 3; float).

    Returns:
        A tensor of the same shape and dtype: Y in [0, 1], U and V in [-0.5, 0.5].
    """
    return _convert(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images: Any) -> Tensor:
    """Converts one or more images from YUV to RGB (the inverse of `rgb_to_yuv`).

    Returns:
        A tensor of the same shape and dtype.
    """
    return _convert(images, _YUV_TO_RGB, "yuv_to_rgb")
