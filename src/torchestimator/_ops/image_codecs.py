"""Image codecs and whole-file I/O (`tf.io.read_file`, `tf.io.decode_*`, `tf.io.encode_*`).

Decoding and encoding go through Pillow. Decoded images are uint8 torch tensors laid out as
TF lays them out: `[height, width, channels]`, and GIFs `[frames, height, width, 3]`.
Encoded images and file contents are `bytes` (TF's scalar string tensors), as the rest of
the package's string ops give them.

`decode_image` sniffs the format from the first bytes, as TF's kernel does, and accepts
only BMP, GIF, JPEG and PNG.
"""

from __future__ import annotations

import io
import os
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.image_ops import (
    _bytes,
    _decode,
    _pil,
    convert_image_dtype,
)
from torchestimator.errors import InvalidArgumentError

__all__: list[str] = []  # tf.io and tf.image import these by name

Tensor = torch.Tensor

_UNKNOWN_FORMAT = "Unknown image file format. One of JPEG, PNG, GIF, BMP required."


def read_file(filename: Any, name: str | None = None) -> bytes:
    """Reads the contents of file (TF's `tf.io.read_file`).

    This operation returns the entire contents of the file `filename`, unchanged. It does
    not parse the contents; local paths and the URLs `tf.io.gfile` knows are accepted.

    Returns:
        The file's contents as `bytes` (TF's scalar string tensor).
    """
    from torchestimator._engine import gfile  # lazy: heavy (fsspec, 330 ms)

    if isinstance(filename, np.ndarray):
        filename = filename.item()
    if isinstance(filename, bytes):
        filename = os.fsdecode(filename)
    with gfile.GFile(filename, "rb") as f:
        return f.read()


def write_file(filename: Any, contents: Any, name: str | None = None) -> None:
    """Writes `contents` to the file at `filename` (TF's `tf.io.write_file`), creating the
    file, or replacing it if it exists; the parent directory must exist.

    `contents` is `bytes` (a `str` is written as UTF-8, as TF's string tensors hold it).

    Returns:
        None.
    """
    from torchestimator._engine import gfile  # lazy: heavy (fsspec, 330 ms)

    if isinstance(filename, np.ndarray):
        filename = filename.item()
    if isinstance(filename, bytes):
        filename = os.fsdecode(filename)
    if isinstance(contents, np.ndarray):
        contents = contents.item()
    if isinstance(contents, str):
        contents = contents.encode("utf-8")
    if not isinstance(contents, (bytes, bytearray, memoryview)):
        raise TypeError(f"write_file: contents must be bytes, got {type(contents).__name__}.")
    with gfile.GFile(filename, "wb") as f:
        f.write(bytes(contents))


def _sniff(data: bytes) -> str | None:
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] in (b"GIF8",):
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


def _gif_frames(data: bytes, op: str) -> Tensor:
    image_mod = _pil()
    try:
        img = image_mod.open(io.BytesIO(data))
        frames = []
        for index in range(getattr(img, "n_frames", 1)):
            img.seek(index)
            frames.append(np.asarray(img.convert("RGB")))
    except Exception as exc:  # PIL raises many kinds for broken data
        raise InvalidArgumentError(None, None, f"{op}: cannot decode the image: {exc}") from None
    return torch.from_numpy(np.stack(frames).copy())


def decode_gif(contents: Any, name: str | None = None) -> Tensor:
    """Decode the frame(s) of a GIF-encoded image to a uint8 tensor (TF's `tf.io.decode_gif`).

    GIF images with frame or transparency compression are composited, as TF does. RGB
    channel order; the alpha channel is not kept.

    Returns:
        A uint8 tensor of shape `[num_frames, height, width, 3]`.
    """
    data = _bytes(contents, "decode_gif")
    if _sniff(data) != "gif":
        raise InvalidArgumentError(
            None, None, f"decode_gif: Invalid GIF data (size {len(data)}), missing the GIF signature."
        )
    return _gif_frames(data, "decode_gif")


def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> Tensor:
    """Decode the first frame of a BMP-encoded image to a uint8 tensor (TF's
    `tf.io.decode_bmp`).

    `channels`: 0 uses the number of channels in the BMP image, 1 outputs grayscale, 3 RGB,
    4 RGBA.

    Returns:
        A uint8 tensor of shape `[height, width, channels]`.
    """
    if channels not in (0, 1, 3, 4):
        raise InvalidArgumentError(
            None, None, f"decode_bmp: channels must be 0, 1, 3 or 4, got {channels}."
        )
    data = _bytes(contents, "decode_bmp")
    if _sniff(data) != "bmp":
        raise InvalidArgumentError(None, None, "decode_bmp: Input is not a BMP image.")
    return _decode(data, channels, "decode_bmp")


def decode_image(contents: Any, channels: int | None = None, dtype: Any = torch.uint8,
                 name: str | None = None, expand_animations: bool = True) -> Tensor:
    """Function for `decode_bmp`, `decode_gif`, `decode_jpeg`, and `decode_png` (TF's
    `tf.io.decode_image`).

    Detects whether an image is a BMP, GIF, JPEG, or PNG, and performs the appropriate
    operation to convert the input bytes string into a tensor of type `dtype` (uint8
    values converted with `tf.image.convert_image_dtype`, so floats lie in [0, 1]).

    Args:
        contents: the encoded image bytes.
        channels: 0 (or None) keeps the image's channels; 1, 3 or 4 converts to grayscale,
            RGB or RGBA. GIFs take 0 or 3.
        dtype: the output dtype (uint8, uint16, float32, ...).
        expand_animations: with True an animated (or any) GIF gives a 4-D
            `[num_frames, height, width, 3]` tensor; with False its first frame, 3-D.

    Returns:
        A tensor of `dtype`, `[height, width, channels]` (or `[num_frames, height, width,
        3]` for a GIF with `expand_animations=True`).
    """
    channels = 0 if channels is None else int(channels)
    if channels not in (0, 1, 3, 4):
        raise InvalidArgumentError(
            None, None, f"decode_image: channels must be 0, 1, 3 or 4, got {channels}."
        )
    want = _dtypes.as_dtype(dtype)
    data = _bytes(contents, "decode_image")
    kind = _sniff(data)
    if kind is None:
        raise InvalidArgumentError(None, None, _UNKNOWN_FORMAT)
    if kind == "gif":
        if channels not in (0, 3):
            raise InvalidArgumentError(
                None, None, f"decode_image: channels must be 0 or 3 for GIF, got {channels}."
            )
        image = _gif_frames(data, "decode_image")
        if not expand_animations:
            image = image[0]
    elif kind == "png" and want is torch.uint16:
        return _decode(data, channels, "decode_image", torch.uint16)
    else:
        image = _decode(data, channels, "decode_image")
    return image if want is torch.uint8 else convert_image_dtype(image, want)
