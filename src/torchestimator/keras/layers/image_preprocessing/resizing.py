"""`Resizing` and `CenterCrop`: deterministic resizing and cropping of images
(`tf.keras.layers.Resizing`, `tf.keras.layers.CenterCrop`)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.image_ops import resize
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.image_preprocessing._base import (
    check_image_rank,
    check_positive_int,
    convert_inputs,
)
from torchestimator.keras.utils._image_utils import smart_resize

INTERPOLATION_METHODS = (
    "bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic",
)


def get_interpolation(interpolation: Any) -> str:
    """Returns the `tf.image.resize` method of a Keras `interpolation` name (any case);
    NotImplementedError (Keras' error) for an unknown one."""
    method = interpolation.lower() if isinstance(interpolation, str) else interpolation
    if method not in INTERPOLATION_METHODS:
        raise NotImplementedError(
            f"Value not recognized for `interpolation`: {interpolation}. Supported values "
            f"are: {list(INTERPOLATION_METHODS)}"
        )
    return method


def resize_output_shape(input_shape: Any, height: Any, width: Any) -> tuple:
    """The input shape with its height and width (axes -3 and -2) replaced."""
    shape = list(input_shape)
    shape[-3] = height
    shape[-2] = width
    return tuple(shape)


class Resizing(Layer):
    """A preprocessing layer which resizes images.

    This layer resizes an image input to a target height and width. The input should be a
    4D (batched) or 3D (unbatched) tensor in `"channels_last"` format. Input pixel values
    can be of any range (e.g. `[0., 1.)` or `[0, 255]`) and of integer or floating point
    dtype. The layer outputs floats (its compute dtype).

    Args:
        height: Integer, the height of the output shape.
        width: Integer, the width of the output shape.
        interpolation: String, the interpolation method: `"bilinear"` (default),
            `"nearest"`, `"bicubic"`, `"area"`, `"lanczos3"`, `"lanczos5"`, `"gaussian"`,
            `"mitchellcubic"` (`tf.image.resize`'s kernels).
        crop_to_aspect_ratio: If True, resize the images without aspect ratio distortion:
            when the original aspect ratio differs from the target one, the largest
            centered window of the target aspect ratio is cropped out and resized. By
            default (`False`), the aspect ratio may not be preserved.

    Returns (when called): `(..., height, width, channels)` floats.
    """

    def __init__(self, height: int, width: int, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, **kwargs: Any):
        self._interpolation_method = get_interpolation(interpolation)
        super().__init__(**kwargs)
        self.height = check_positive_int(height, "height", "Resizing")
        self.width = check_positive_int(width, "width", "Resizing")
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)

    def call(self, inputs: Any) -> torch.Tensor:
        """Returns the images resized to `(height, width)`, in the compute dtype."""
        # tf.image.resize outputs float32 except for "nearest", which keeps the dtype.
        dtype = self._compute_dtype if self._interpolation_method == "nearest" else torch.float32
        x = convert_inputs(inputs, dtype)
        check_image_rank(self, x)
        size = (self.height, self.width)
        if self.crop_to_aspect_ratio:
            out = smart_resize(x, size, interpolation=self._interpolation_method)
        else:
            out = resize(x, size, method=self._interpolation_method)
        return out.to(self._compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape with height and width set to the layer's."""
        return resize_output_shape(input_shape, self.height, self.width)

    def get_config(self) -> dict:
        """Returns `height`, `width`, `interpolation` and `crop_to_aspect_ratio`."""
        config = super().get_config()
        config.update({
            "height": self.height, "width": self.width, "interpolation": self.interpolation,
            "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
        })
        return config


def center_crop_or_resize(images: torch.Tensor, height: int, width: int,
                          dtype: torch.dtype) -> torch.Tensor:
    """The central `(height, width)` window of the images; when they are smaller, the
    largest window of that aspect ratio resized to it (`smart_resize`), in `dtype`."""
    h_diff = images.shape[-3] - height
    w_diff = images.shape[-2] - width
    if h_diff >= 0 and w_diff >= 0:
        top, left = h_diff // 2, w_diff // 2
        return images[..., top:top + height, left:left + width, :]
    return smart_resize(images, (height, width)).to(dtype)


class CenterCrop(Layer):
    """A preprocessing layer which crops images.

    This layer crops the central portion of the images to a target size. If an image is
    smaller than the target size, it will be resized and cropped so as to return the
    largest possible window in the image that matches the target aspect ratio. Input pixel
    values can be of any range and of integer or floating point dtype; the layer outputs
    floats. If the input height/width is even and the target height/width is odd (or
    inversely), the input image is left-padded by 1 pixel.

    Args:
        height: Integer, the height of the output shape.
        width: Integer, the width of the output shape.

    Input shape: `(..., height, width, channels)` ("channels_last", 3D or 4D).
    Output shape: `(..., target_height, target_width, channels)`.
    """

    def __init__(self, height: int, width: int, **kwargs: Any):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        self.height = check_positive_int(height, "height", "CenterCrop")
        self.width = check_positive_int(width, "width", "CenterCrop")

    def call(self, inputs: Any) -> torch.Tensor:
        """Returns the central crop (or the aspect-preserving resize) in the compute dtype."""
        x = convert_inputs(inputs, self._compute_dtype)
        check_image_rank(self, x)
        return center_crop_or_resize(x, self.height, self.width, self._compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape with height and width set to the layer's."""
        return resize_output_shape(input_shape, self.height, self.width)

    def get_config(self) -> dict:
        """Returns `height` and `width`."""
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config
