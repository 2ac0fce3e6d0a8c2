"""tf.image's (and tf.io's) JPEG and PNG decoding and encoding through Pillow."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.image_ops._common import Tensor, _image
from torchestimator.errors import InvalidArgumentError


# ---------------------------------------------------------------------------- codecs
def _pil():
    try:
        from PIL import Image  # lazy: heavy (PIL.Image, 112 ms)
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
