"""Projective image transforms as TF's `ImageProjectiveTransformV3` kernel computes them.

A transform row `[a0, a1, a2, b0, b1, b2, c0, c1]` maps each *output* pixel `(x, y)` to
the *input* point `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)` with
`k = c0 x + c1 y + 1` (the transform is inverted compared with the one moving input points
to output points). An input point outside the image is first mapped back inside by the
fill mode -- `reflect` (d c b a | a b c d | d c b a), `wrap` (a b c d | a b c d | a b c d),
`nearest` (a a a a | a b c d | d d d d) -- or, for `constant`, reads `fill_value`; then
`nearest` reads the pixel at the rounded point (halves away from zero, as C++'s
`std::round`) and `bilinear` weighs the four pixels around it, any of them outside the
image reading `fill_value`. The index maths is TF's, in float32, as explicit gathers: the
result matches TF's kernel and runs on the input's device, with gradients to the image.

`rotation_matrix`, `translation_matrix` and `zoom_matrix` are Keras 2.15's
`get_rotation_matrix`, `get_translation_matrix` and `get_zoom_matrix`.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.image_ops import _cast

Tensor = torch.Tensor

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("nearest", "bilinear")


def check_fill_mode_and_interpolation(fill_mode: Any, interpolation: Any) -> None:
    """Raises NotImplementedError (Keras' error and text) for an unknown `fill_mode` or
    `interpolation` of the affine layers."""
    if fill_mode not in FILL_MODES:
        raise NotImplementedError(
            f"Unknown `fill_mode` {fill_mode}. Only `reflect`, `wrap`, `constant` and "
            "`nearest` are supported."
        )
    if interpolation not in INTERPOLATIONS:
        raise NotImplementedError(
            f"Unknown `interpolation` {interpolation}. Only `nearest` and `bilinear` are "
            "supported."
        )


# ------------------------------------------------------------------------------ fill modes
def _map_reflect(coord: Tensor, size: int) -> Tensor:
    if size <= 1:
        return torch.zeros_like(coord)
    sz2 = 2 * size
    neg = sz2 * torch.trunc(-coord / sz2) + coord
    neg = torch.where(neg < -size, neg + sz2, -neg - 1)
    pos = coord - sz2 * torch.trunc(coord / sz2)
    pos = torch.where(pos >= size, sz2 - pos - 1, pos)
    out = torch.where(coord < 0, neg, torch.where(coord > size - 1, pos, coord))
    return out.clamp(0.0, size - 1.0)


def _map_wrap(coord: Tensor, size: int) -> Tensor:
    if size <= 1:
        return torch.zeros_like(coord)
    sz = size - 1
    neg = coord + size * (torch.trunc(-coord / sz) + 1)
    pos = coord - size * torch.trunc(coord / sz)
    out = torch.where(coord < 0, neg, torch.where(coord > size - 1, pos, coord))
    return out.clamp(0.0, size - 1.0)


def _map_coordinate(coord: Tensor, size: int, fill_mode: str) -> Tensor:
    if fill_mode == "reflect":
        return _map_reflect(coord, size)
    if fill_mode == "wrap":
        return _map_wrap(coord, size)
    if fill_mode == "nearest":
        return coord.clamp(0.0, size - 1.0)
    return coord  # constant: points outside read fill_value


# ------------------------------------------------------------------------------ sampling
def _round_half_away(value: Tensor) -> Tensor:
    return torch.sign(value) * torch.floor(value.abs() + 0.5)


class _Reader:
    """Reads pixels of an NHWC float32 batch at float-valued integer coordinates of shape
    `[N, P]`, `fill_value` where a coordinate is outside the image (TF's
    `read_with_fill_value`)."""

    def __init__(self, images: Tensor, fill_value: Tensor):
        n, self.height, self.width, channels = images.shape
        self.flat = images.reshape(n, self.height * self.width, channels)
        self.fill_value = fill_value

    def __call__(self, y: Tensor, x: Tensor) -> Tensor:
        inside = (y >= 0) & (y < self.height) & (x >= 0) & (x < self.width)
        yi = torch.where(inside, y, torch.zeros_like(y)).to(torch.int64)
        xi = torch.where(inside, x, torch.zeros_like(x)).to(torch.int64)
        index = (yi * self.width + xi).unsqueeze(-1).expand(-1, -1, self.flat.shape[-1])
        values = torch.gather(self.flat, 1, index)
        return torch.where(inside.unsqueeze(-1), values, self.fill_value)


def projective_transform(
    images: Tensor,
    transforms: Any,
    fill_mode: str = "reflect",
    fill_value: float = 0.0,
    interpolation: str = "bilinear",
    output_shape: tuple[int, int] | None = None,
) -> Tensor:
    """Applies the projective transform(s) to an NHWC batch (TF's
    `ImageProjectiveTransformV3`, Keras' `transform`).

    Args:
        images: `[batch, height, width, channels]`.
        transforms: `[8]`, `[1, 8]` (the same for every image) or `[batch, 8]`.
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        fill_value: the value of points outside the image for "constant" (and of
            bilinear neighbours outside the image).
        interpolation: "nearest" or "bilinear".
        output_shape: `(height, width)` of the output; the input's by default.

    Returns:
        The transformed images, `[batch, out_height, out_width, channels]`, of the input's
        dtype (integer results are truncated, as TF casts).
    """
    check_fill_mode_and_interpolation(fill_mode, interpolation)
    if images.dim() != 4:
        raise ValueError(
            f"transform: `images` must be 4-D [batch, height, width, channels], got shape "
            f"{tuple(images.shape)}."
        )
    n, height, width, _ = images.shape
    out_h, out_w = (height, width) if output_shape is None else (int(s) for s in output_shape)
    t = torch.as_tensor(transforms, dtype=torch.float32, device=images.device)
    if t.dim() == 1:
        t = t.unsqueeze(0)
    if t.dim() != 2 or t.shape[1] != 8 or t.shape[0] not in (1, n):
        raise ValueError(
            f"transform: `transforms` must be of shape [8], [1, 8] or [batch={n}, 8], got "
            f"{tuple(t.shape)}."
        )
    t = t.expand(n, 8)
    x = torch.arange(out_w, dtype=torch.float32, device=images.device).view(1, 1, out_w)
    y = torch.arange(out_h, dtype=torch.float32, device=images.device).view(1, out_h, 1)
    a0, a1, a2, b0, b1, b2, c0, c1 = (t[:, i].view(n, 1, 1) for i in range(8))
    k = c0 * x + c1 * y + 1.0
    singular = (k == 0).reshape(n, -1)
    in_x = ((a0 * x + a1 * y + a2) / k).reshape(n, -1)
    in_y = ((b0 * x + b1 * y + b2) / k).reshape(n, -1)
    in_x = _map_coordinate(in_x, width, fill_mode)
    in_y = _map_coordinate(in_y, height, fill_mode)

    source = images if images.dtype is torch.float32 else images.to(torch.float32)
    fill = torch.as_tensor(fill_value, dtype=torch.float32, device=images.device)
    if not images.dtype.is_floating_point:
        fill = _cast(fill, images.dtype).to(torch.float32)  # TF casts fill_value to the dtype
    read = _Reader(source, fill)
    if interpolation == "nearest":
        out = read(_round_half_away(in_y), _round_half_away(in_x))
    else:
        y0, x0 = torch.floor(in_y), torch.floor(in_x)
        y1, x1 = y0 + 1, x0 + 1
        wx0, wx1 = (x1 - in_x).unsqueeze(-1), (in_x - x0).unsqueeze(-1)
        top = wx0 * read(y0, x0) + wx1 * read(y0, x1)
        bottom = wx0 * read(y1, x0) + wx1 * read(y1, x1)
        out = (y1 - in_y).unsqueeze(-1) * top + (in_y - y0).unsqueeze(-1) * bottom
    out = torch.where(singular.unsqueeze(-1), fill, out)
    out = out.reshape(n, out_h, out_w, images.shape[-1])
    return out if out.dtype is images.dtype else _cast(out, images.dtype)


# ------------------------------------------------------------------------------ matrices
def _column(values: Tensor) -> Tensor:
    return values.reshape(-1, 1)


def rotation_matrix(angles: Tensor, image_height: float, image_width: float) -> Tensor:
    """Returns the `[N, 8]` transforms rotating each image by `angles` (radians,
    counter-clockwise) about its center (Keras' `get_rotation_matrix`)."""
    angles = angles.to(torch.float32).reshape(-1)
    cos, sin = torch.cos(angles), torch.sin(angles)
    h1, w1 = float(image_height) - 1.0, float(image_width) - 1.0
    x_offset = (w1 - (cos * w1 - sin * h1)) / 2.0
    y_offset = (h1 - (sin * w1 + cos * h1)) / 2.0
    zeros = torch.zeros_like(angles)
    return torch.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], dim=1)


def translation_matrix(translations: Tensor) -> Tensor:
    """Returns the `[N, 8]` transforms shifting each image by `[dx, dy]` pixels (the rows of
    `translations`) (Keras' `get_translation_matrix`)."""
    translations = translations.to(torch.float32).reshape(-1, 2)
    ones = torch.ones_like(translations[:, 0])
    zeros = torch.zeros_like(ones)
    return torch.stack(
        [ones, zeros, -translations[:, 0], zeros, ones, -translations[:, 1], zeros, zeros], dim=1
    )


def zoom_matrix(zooms: Tensor, image_height: float, image_width: float) -> Tensor:
    """Returns the `[N, 8]` transforms zooming each image by `[zx, zy]` (the rows of
    `zooms`; above 1 zooms out) about its center (Keras' `get_zoom_matrix`)."""
    zooms = zooms.to(torch.float32).reshape(-1, 2)
    zx, zy = zooms[:, 0], zooms[:, 1]
    x_offset = ((float(image_width) - 1.0) / 2.0) * (1.0 - zx)
    y_offset = ((float(image_height) - 1.0) / 2.0) * (1.0 - zy)
    zeros = torch.zeros_like(zx)
    return torch.stack([zx, zeros, x_offset, zeros, zy, y_offset, zeros, zeros], dim=1)
