"""Keras 2.15's image utilities (`keras/src/utils/image_utils.py`): `load_img`,
`img_to_array`, `array_to_img`, `save_img` and `smart_resize`, over Pillow and torch.

As in Keras, `load_img` and `array_to_img` give `PIL.Image.Image`s and `img_to_array`
numpy arrays; `smart_resize` takes and gives torch tensors (numpy in, numpy out).
"""

from __future__ import annotations

import io
import pathlib
import warnings
from typing import Any

import numpy as np
import torch

from torchestimator._ops.image_ops import _pil, resize
from torchestimator.keras.backend import floatx, image_data_format

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]


def _pil_interpolation_methods() -> dict[str, Any]:
    image_mod = _pil()
    return {
        "nearest": image_mod.NEAREST,
        "bilinear": image_mod.BILINEAR,
        "bicubic": image_mod.BICUBIC,
        "hamming": image_mod.HAMMING,
        "box": image_mod.BOX,
        "lanczos": image_mod.LANCZOS,
    }


def smart_resize(x: Any, size: Any, interpolation: str = "bilinear") -> Any:
    """Resize images to a target size without aspect ratio distortion.

    The resizing process is: 1. take the largest centered crop of the image that has the
    same aspect ratio as the target size (for `size=(200, 200)` and an input of size
    `(340, 500)`, a `(340, 340)` crop centered along the width); 2. resize the cropped image
    to the target size with `tf.image.resize(method=interpolation)`.

    Args:
        x: Input image or batch of images (as a tensor or NumPy array), in format
            `(height, width, channels)` or `(batch_size, height, width, channels)`.
        size: Tuple of `(height, width)` integer. Target size.
        interpolation: interpolation to use for resizing (`bilinear`, `nearest`,
            `bicubic`, `area`, `lanczos3`, `lanczos5`, `gaussian`, `mitchellcubic`).

    Returns:
        Array with shape `(size[0], size[1], channels)`. If the input image was a NumPy
        array, the output is a NumPy array, and if it was a tensor, the output is a tensor.
    """
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = x if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x))
    if img.dim() < 3 or img.dim() > 4:
        raise ValueError(
            "Expected an image array with shape `(height, width, channels)`, or "
            "`(batch_size, height, width, channels)`, but got input with incorrect rank, of "
            f"shape {tuple(img.shape)}."
        )
    height, width = int(img.shape[-3]), int(img.shape[-2])
    target_height, target_width = int(size[0]), int(size[1])
    # Keras computes these in float32 and truncates to int32.
    crop_height = int(np.float32(width * target_height) / np.float32(target_width))
    crop_width = int(np.float32(height * target_width) / np.float32(target_height))
    crop_height = min(height, crop_height)
    crop_width = min(width, crop_width)
    crop_box_hstart = int(np.float32(height - crop_height) / np.float32(2))
    crop_box_wstart = int(np.float32(width - crop_width) / np.float32(2))
    img = img[..., crop_box_hstart:crop_box_hstart + crop_height,
              crop_box_wstart:crop_box_wstart + crop_width, :]
    img = resize(img, (target_height, target_width), method=interpolation)
    if isinstance(x, np.ndarray):
        return img.numpy()
    return img


def array_to_img(x: Any, data_format: str | None = None, scale: bool = True,
                 dtype: Any = None) -> Any:
    """Converts a 3D Numpy array to a PIL Image instance.

    Args:
        x: Input data, in any form that can be converted to a Numpy array.
        data_format: Image data format, can be either `"channels_first"` or
            `"channels_last"`. Defaults to `tf.keras.backend.image_data_format()`.
        scale: Whether to rescale the image such that minimum and maximum values are 0 and
            255 respectively. Defaults to `True`.
        dtype: Dtype to use. Defaults to `tf.keras.backend.floatx()`.

    Returns:
        A PIL Image instance.

    Raises:
        ImportError: if PIL is not available.
        ValueError: if invalid `x` or `data_format` is passed.
    """
    if data_format is None:
        data_format = image_data_format()
    if dtype is None:
        dtype = floatx()
    image_mod = _pil()
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    x = np.asarray(x, dtype=dtype)
    if x.ndim != 3:
        raise ValueError(
            "Expected image array to have rank 3 (single image). "
            f"Got array with shape: {x.shape}"
        )
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Invalid data_format: {data_format}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    if x.shape[2] == 4:
        return image_mod.fromarray(x.astype("uint8"), "RGBA")
    if x.shape[2] == 3:
        return image_mod.fromarray(x.astype("uint8"), "RGB")
    if x.shape[2] == 1:
        if np.max(x) > 255:
            # 32-bit signed integer grayscale image. PIL mode "I"
            return image_mod.fromarray(x[:, :, 0].astype("int32"), "I")
        return image_mod.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {x.shape[2]}")


def img_to_array(img: Any, data_format: str | None = None, dtype: Any = None) -> np.ndarray:
    """Converts a PIL Image instance to a Numpy array.

    Args:
        img: Input PIL Image instance.
        data_format: Image data format, can be either `"channels_first"` or
            `"channels_last"`. Defaults to `tf.keras.backend.image_data_format()`.
        dtype: Dtype to use. Defaults to `tf.keras.backend.floatx()`.

    Returns:
        A 3D Numpy array.

    Raises:
        ValueError: if invalid `img` or `data_format` is passed.
    """
    if data_format is None:
        data_format = image_data_format()
    if dtype is None:
        dtype = floatx()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    x = np.asarray(img, dtype=dtype)
    if len(x.shape) == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    elif len(x.shape) == 2:
        if data_format == "channels_first":
            x = x.reshape((1, x.shape[0], x.shape[1]))
        else:
            x = x.reshape((x.shape[0], x.shape[1], 1))
    else:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x


def save_img(path: Any, x: Any, data_format: str | None = None, file_format: str | None = None,
             scale: bool = True, **kwargs: Any) -> None:
    """Saves an image stored as a Numpy array to a path or file object.

    Args:
        path: Path or file object.
        x: Numpy array (or tensor).
        data_format: Image data format, either `"channels_first"` or `"channels_last"`.
        file_format: Optional file format override. If omitted, the format to use is
            determined from the filename extension. If a file object was used instead of a
            filename, this parameter should always be used.
        scale: Whether to rescale image values to be within `[0, 255]`.
        **kwargs: Additional keyword arguments passed to `PIL.Image.save()`.
    """
    if data_format is None:
        data_format = image_data_format()
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg"):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def load_img(path: Any, grayscale: bool = False, color_mode: str = "rgb",
             target_size: Any = None, interpolation: str = "nearest",
             keep_aspect_ratio: bool = False) -> Any:
    """Loads an image into PIL format.

    Args:
        path: Path to image file (str, bytes, `pathlib.Path`) or an `io.BytesIO`.
        grayscale: DEPRECATED use `color_mode="grayscale"`.
        color_mode: One of `"grayscale"`, `"rgb"`, `"rgba"`. Default: `"rgb"`. The
            desired image format.
        target_size: Either `None` (default to original size) or tuple of ints
            `(img_height, img_width)`.
        interpolation: Interpolation method used to resample the image if the target size
            is different from that of the loaded image: `"nearest"` (default),
            `"bilinear"`, `"bicubic"`, `"lanczos"`, `"box"` or `"hamming"`.
        keep_aspect_ratio: Boolean, whether to resize images to a target size without
            aspect ratio distortion. The image is cropped in the center with target aspect
            ratio before resizing.

    Returns:
        A PIL Image instance.

    Raises:
        ImportError: if PIL is not available.
        ValueError: if interpolation method is not supported.
    """
    if grayscale:
        warnings.warn('grayscale is deprecated. Please use color_mode = "grayscale"',
                      stacklevel=2)
        color_mode = "grayscale"
    image_mod = _pil()
    if isinstance(path, io.BytesIO):
        img = image_mod.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        if isinstance(path, pathlib.Path):
            path = str(path.resolve())
        with open(path, "rb") as f:
            img = image_mod.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")

    if color_mode == "grayscale":
        # if image is not already an 8-bit, 16-bit or 32-bit grayscale image
        # convert it to an 8-bit grayscale image.
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is not None:
        width_height_tuple = (target_size[1], target_size[0])
        if img.size != width_height_tuple:
            methods = _pil_interpolation_methods()
            if interpolation not in methods:
                raise ValueError(
                    f"Invalid interpolation method {interpolation} specified. Supported "
                    f"methods are {', '.join(methods.keys())}"
                )
            resample = methods[interpolation]
            if keep_aspect_ratio:
                width, height = img.size
                target_width, target_height = width_height_tuple
                crop_height = (width * target_height) // target_width
                crop_width = (height * target_width) // target_height
                # Set back to input height / width if crop_height / crop_width is not smaller.
                crop_height = min(height, crop_height)
                crop_width = min(width, crop_width)
                crop_box_hstart = (height - crop_height) // 2
                crop_box_wstart = (width - crop_width) // 2
                crop_box = [crop_box_wstart, crop_box_hstart,
                            crop_box_wstart + crop_width, crop_box_hstart + crop_height]
                img = img.resize(width_height_tuple, resample, box=crop_box)
            else:
                img = img.resize(width_height_tuple, resample)
    return img
