"""tf.image's flips, rotations, transposes, crops and pads, and their random and stateless forms."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._engine.loop import to_device
from torchestimator._ops.image_ops._common import (
    _HOST,
    Tensor,
    _as_batch,
    _box,
    _check_rank,
    _image,
    _int_arg,
    _op_seed_generator,
    _rank_error,
    _stateless,
    _unbatch,
)
from torchestimator.errors import InvalidArgumentError


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
    """Flips `image` (or each image of a batch) along `dim` with probability 1/2. The coins are
    tossed on the host (`gen` is a host generator, or None for torch's default one): a single
    image's flip is decided without reading the device, a batch's coins cross as the loop's
    batches do (pinned, without blocking), and a seed tosses the same coins on every device."""
    if image.dim() == 3:
        flip = torch.rand((), generator=gen) < 0.5
        return torch.flip(image, (dim,)) if bool(flip) else image
    flips = to_device(torch.rand((image.shape[0],), generator=gen) < 0.5, image.device)
    return torch.where(flips.view(-1, 1, 1, 1), torch.flip(image, (dim,)), image)


def random_flip_left_right(image: Any, seed: int | None = None) -> Tensor:
    """Randomly flips an image horizontally (left to right), each image of a batch
    independently with probability 1/2 (TF's `tf.image.random_flip_left_right`).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "random_flip_left_right")
    _check_rank(image, "random_flip_left_right")
    gen = _op_seed_generator(seed, _HOST, "random_flip_left_right")
    return _random_flip(image, -2, gen)


def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    """Randomly flips an image vertically (upside down), each image of a batch independently
    with probability 1/2 (TF's `tf.image.random_flip_up_down`).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "random_flip_up_down")
    _check_rank(image, "random_flip_up_down")
    return _random_flip(image, -3, _op_seed_generator(seed, _HOST, "random_flip_up_down"))


def stateless_random_flip_left_right(image: Any, seed: Any) -> Tensor:
    """Randomly flips an image horizontally, deterministically given `seed` (shape [2])
    (TF's `tf.image.stateless_random_flip_left_right`; not TF's random values).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "stateless_random_flip_left_right")
    _check_rank(image, "stateless_random_flip_left_right")
    return _random_flip(image, -2, _stateless(seed, "stateless_random_flip"))


def stateless_random_flip_up_down(image: Any, seed: Any) -> Tensor:
    """Randomly flips an image vertically, deterministically given `seed` (shape [2])
    (TF's `tf.image.stateless_random_flip_up_down`; not TF's random values).

    Returns:
        A tensor of the same type and shape as `image`.
    """
    image = _image(image, "stateless_random_flip_up_down")
    _check_rank(image, "stateless_random_flip_up_down")
    return _random_flip(image, -3, _stateless(seed, "stateless_random_flip"))


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
    gen = _op_seed_generator(seed, _HOST, "random_crop")
    offsets = (torch.randint(0, 2**31 - 1, (len(shape),), generator=gen) % limit).tolist()
    index = tuple(slice(o, o + s) for o, s in zip(offsets, size))
    return value[index]
