"""tf.image's box ops: crop_and_resize, draw_bounding_boxes, extract_glimpse and
sample_distorted_bounding_box (TF's kernels' conventions)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator._ops.image_ops import _image, _op_seed_generator, _stateless
from torchestimator.errors import InvalidArgumentError, OutOfRangeError

Tensor = torch.Tensor


def _floats(value: Any, name: str, op: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=torch.float32)
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: `{name}` must be a float tensor, got strings.")
    return t.to(torch.float32)


def _ints(value: Any, name: str, op: str) -> list[int]:
    t = convert_to_tensor(value)
    if not isinstance(t, Tensor) or t.is_floating_point():
        raise TypeError(f"{op}: `{name}` must be integers, got {value!r}.")
    return [int(v) for v in t.reshape(-1).tolist()]


# ---------------------------------------------------------------------------- crop_and_resize
def crop_and_resize(image: Any, boxes: Any, box_indices: Any, crop_size: Any,
                    method: str = "bilinear", extrapolation_value: float = 0.0,
                    name: str | None = None) -> Tensor:
    """Extracts crops from `image` (`[batch, height, width, depth]`) and resizes them to
    `crop_size` (bilinear or nearest, TF's CropAndResize sampling: box corners map to pixel
    centers `y1 * (height - 1)`; samples outside the image get `extrapolation_value`).

    `boxes` `[num_boxes, 4]` are normalized `[y1, x1, y2, x2]` (y1 > y2 flips the crop);
    `box_indices` `[num_boxes]` pick the batch element of each box.

    Returns:
        A float32 tensor `[num_boxes, crop_height, crop_width, depth]`.
    """
    op = "crop_and_resize"
    img = _image(image, op)
    if img.dim() != 4:
        raise InvalidArgumentError(None, None, f"{op}: input image must be 4-D, got shape "
                                   f"{list(img.shape)}.")
    bx = _floats(boxes, "boxes", op).to(img.device)
    ind = convert_to_tensor(box_indices)
    if bx.dim() != 2 or bx.shape[-1] != 4 or ind.dim() != 1 or ind.shape[0] != bx.shape[0]:
        raise InvalidArgumentError(None, None, f"{op}: boxes must be [num_boxes, 4] and "
                                   f"box_indices [num_boxes], got {list(bx.shape)} and "
                                   f"{list(ind.shape)}.")
    size = _ints(crop_size, "crop_size", op)
    if len(size) != 2:
        raise InvalidArgumentError(None, None, f"{op}: crop_size must be [crop_height, "
                                   f"crop_width], got {size}.")
    if size[0] <= 0 or size[1] <= 0:
        raise InvalidArgumentError(None, None, f"{op}: crop dimensions must be positive, got "
                                   f"{size}.")
    if method not in ("bilinear", "nearest"):
        raise InvalidArgumentError(None, None, f"{op}: method must be 'bilinear' or 'nearest', "
                                   f"got {method!r}.")
    batch, height, width, _ = img.shape
    ind = ind.to(img.device).long()
    if ind.numel() and (int(ind.min()) < 0 or int(ind.max()) >= batch):
        raise OutOfRangeError(None, None, f"{op}: box_index has values outside [0, batch_size) "
                              f"(batch_size {batch}).")
    x = img.to(torch.float32)
    ys = _sample_coords(bx[:, 0], bx[:, 2], size[0], height)  # [n, ch]
    xs = _sample_coords(bx[:, 1], bx[:, 3], size[1], width)  # [n, cw]
    y_ok = (ys >= 0) & (ys <= height - 1)
    x_ok = (xs >= 0) & (xs <= width - 1)
    src = x[ind]  # [n, h, w, d]
    if method == "nearest":
        yi = _round_half_away(ys).clamp(0, height - 1).long()
        xi = _round_half_away(xs).clamp(0, width - 1).long()
        out = _gather(src, yi, xi)
    else:
        y0 = torch.floor(ys).clamp(0, height - 1)
        x0 = torch.floor(xs).clamp(0, width - 1)
        y1 = torch.ceil(ys).clamp(0, height - 1)
        x1 = torch.ceil(xs).clamp(0, width - 1)
        fy = (ys - torch.floor(ys))[:, :, None, None]
        fx = (xs - torch.floor(xs))[:, None, :, None]
        tl, tr = _gather(src, y0.long(), x0.long()), _gather(src, y0.long(), x1.long())
        bl, br = _gather(src, y1.long(), x0.long()), _gather(src, y1.long(), x1.long())
        top = tl + (tr - tl) * fx
        bottom = bl + (br - bl) * fx
        out = top + (bottom - top) * fy
    ok = (y_ok[:, :, None] & x_ok[:, None, :])[..., None]
    return torch.where(ok, out, torch.as_tensor(float(extrapolation_value), device=out.device))


def _sample_coords(a: Tensor, b: Tensor, crop: int, size: int) -> Tensor:
    if crop > 1:
        scale = (b - a) * (size - 1) / (crop - 1)
        steps = torch.arange(crop, device=a.device, dtype=torch.float32)
        return a[:, None] * (size - 1) + steps[None, :] * scale[:, None]
    return (0.5 * (a + b) * (size - 1))[:, None]


def _round_half_away(x: Tensor) -> Tensor:
    return torch.sign(x) * torch.floor(x.abs() + 0.5)


def _gather(src: Tensor, yi: Tensor, xi: Tensor) -> Tensor:
    n = src.shape[0]
    rows = torch.arange(n, device=src.device)[:, None, None]
    return src[rows, yi[:, :, None], xi[:, None, :]]


# ---------------------------------------------------------------------------- draw_bounding_boxes
_DEFAULT_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                   [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def draw_bounding_boxes(images: Any, boxes: Any, colors: Any, name: str | None = None) -> Tensor:
    """Draws the outlines of `boxes` (`[batch, num_boxes, 4]`, normalized `[y_min, x_min,
    y_max, x_max]`) on `images` (`[batch, height, width, depth]`, depth 1, 3 or 4), box i in
    `colors[i % len(colors)]` (TF's default palette when `colors` is None or empty).

    Returns:
        A tensor of `images`' shape and dtype (float16 or float32; other arrays become float32).
    """
    op = "draw_bounding_boxes"
    if isinstance(images, Tensor) and images.dtype not in (torch.float16, torch.float32):
        raise TypeError(f"{op}: images must be float16 or float32 (TF's kernel), got "
                        f"{images.dtype}; use tf.image.convert_image_dtype or tf.cast first.")
    img = _image(images, op)
    if img.dim() != 4:
        raise InvalidArgumentError(None, None, f"{op}: images must be 4-D [batch, height, width, "
                                   f"depth], got shape {list(img.shape)}.")
    batch, height, width, depth = img.shape
    if depth not in (1, 3, 4):
        raise InvalidArgumentError(None, None, "Channel depth should be either 1 (GRY), 3 (RGB), "
                                   f"or 4 (RGBA), got {depth} ({op}).")
    bx = _floats(boxes, "boxes", op)
    if bx.dim() != 3 or bx.shape[-1] != 4 or bx.shape[0] != batch:
        raise InvalidArgumentError(None, None, f"{op}: boxes must be [batch, num_boxes, 4] with "
                                   f"batch {batch}, got shape {list(bx.shape)}.")
    table = [list(c) for c in _DEFAULT_COLORS]
    if colors is not None:
        ct = _floats(colors, "colors", op)
        if ct.numel():
            if ct.dim() != 2 or ct.shape[1] < depth:
                raise InvalidArgumentError(None, None, f"{op}: colors must be [num_colors, >= "
                                           f"depth]: Channel depth should be less than or equal "
                                           f"to the colors' channels, got {list(ct.shape)}.")
            table = ct.tolist()
    if depth == 1:
        for c in table:
            c[0] = 1.0
    canvas = (img if isinstance(images, Tensor) else img.to(torch.float32)).clone()
    for b in range(batch):
        for k, box in enumerate(bx[b].tolist()):
            _draw_box(canvas[b], box, torch.tensor(table[k % len(table)][:depth],
                                                   device=canvas.device))
    return canvas


def _draw_box(canvas: Tensor, box: list[float], color: Tensor) -> None:
    height, width = canvas.shape[:2]
    top = int(np.float32(box[0]) * np.float32(height - 1))  # TF truncates to int64
    bottom = int(np.float32(box[2]) * np.float32(height - 1))
    left = int(np.float32(box[1]) * np.float32(width - 1))
    right = int(np.float32(box[3]) * np.float32(width - 1))
    if top > bottom or left > right:
        return  # inverted: TF logs and skips
    if top >= height or bottom < 0 or left >= width or right < 0:
        return  # outside the image
    top_c, bottom_c = max(top, 0), min(bottom, height - 1)
    left_c, right_c = max(left, 0), min(right, width - 1)
    if top >= 0:
        canvas[top, left_c:right_c + 1] = color
    if bottom < height:
        canvas[bottom, left_c:right_c + 1] = color
    if left >= 0:
        canvas[top_c:bottom_c + 1, left] = color
    if right < width:
        canvas[top_c:bottom_c + 1, right] = color


# ---------------------------------------------------------------------------- extract_glimpse
def extract_glimpse(input: Any, size: Any, offsets: Any, centered: bool = True,
                    normalized: bool = True, noise: str = "uniform",
                    name: str | None = None) -> Tensor:
    """Extracts a glimpse of `size` `[height, width]` from each image of `input`
    (`[batch, height, width, channels]`) at `offsets` (`[batch, 2]`, `(y, x)`).

    TF 2.15's conventions: normalized offsets are in [-1, 1] (centered) or [0, 1] and scaled by
    the image size; centered ones are relative to the image center, and a normalized centered
    offset is the glimpse's center, every other offset its top-left corner (truncated to an
    integer). Pixels outside the image are `noise`: "uniform" (per-channel min..max of the
    image), "gaussian" (per-channel mean and stddev) or "zero".

    Returns:
        A float32 tensor `[batch, glimpse_height, glimpse_width, channels]`.
    """
    op = "extract_glimpse"
    img = _image(input, op)
    if img.dim() != 4:
        raise InvalidArgumentError(None, None, f"{op}: input must be a 4-D tensor, got shape "
                                   f"{list(img.shape)}.")
    if noise not in ("uniform", "gaussian", "zero"):
        raise InvalidArgumentError(None, None, "The noise could only be uniform, gaussian, or "
                                   f"zero, got {noise}")
    gh, gw = _ints(size, "size", op)
    off = _floats(offsets, "offsets", op)
    batch, height, width, channels = img.shape
    if off.shape != (batch, 2):
        raise InvalidArgumentError(None, None, f"{op}: offsets must be [batch_size, 2] = "
                                   f"[{batch}, 2], got {list(off.shape)}.")
    x = img.to(torch.float32)
    tops, lefts = [], []
    for oy, ox in off.tolist():
        y, xx = np.float32(oy), np.float32(ox)
        if normalized:
            y, xx = y * np.float32(height), xx * np.float32(width)
            if centered:
                y = y / np.float32(2) + np.float32(height / 2) - np.float32(gh / 2)
                xx = xx / np.float32(2) + np.float32(width / 2) - np.float32(gw / 2)
        elif centered:
            y, xx = y + np.float32(height / 2), xx + np.float32(width / 2)
        tops.append(int(y))  # C++'s (Index) cast: toward zero
        lefts.append(int(xx))
    out = torch.zeros(batch, gh, gw, channels, device=x.device)
    if noise != "zero":
        flat = x.reshape(batch, -1, channels)
        gen = torch.Generator(device=x.device)
        gen.seed()
        if noise == "uniform":
            lo, hi = flat.amin(1), flat.amax(1)
            r = torch.rand(batch, gh, gw, channels, generator=gen, device=x.device)
            out = lo[:, None, None] + r * (hi - lo)[:, None, None]
        else:
            mean, std = flat.mean(1), flat.std(1, correction=0)
            r = torch.randn(batch, gh, gw, channels, generator=gen, device=x.device)
            out = mean[:, None, None] + r * std[:, None, None]
    for b in range(batch):
        y0, x0 = tops[b], lefts[b]
        sy0, sy1 = max(y0, 0), min(y0 + gh, height)
        sx0, sx1 = max(x0, 0), min(x0 + gw, width)
        if sy0 < sy1 and sx0 < sx1:
            out[b, sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = x[b, sy0:sy1, sx0:sx1]
    return out


# ---------------------------------------------------------------------------- distorted boxes
def _lrint(v: float) -> int:
    return int(np.rint(np.float32(v)))


def _random_crop_rect(gen: torch.Generator, width: int, height: int, aspect: float,
                      area_range: tuple[float, float]) -> tuple[int, int, int, int] | None:
    area = width * height
    min_area, max_area = area_range[0] * area, area_range[1] * area
    min_h = _lrint(math.sqrt(min_area / aspect))
    max_h = _lrint(math.sqrt(max_area / aspect))
    if _lrint(max_h * aspect) > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
    max_h = min(max_h, height)
    if min_h >= max_h:
        min_h = max_h
    if min_h < max_h:
        min_h += int(torch.randint(0, max_h - min_h + 1, (), generator=gen))
    h = min_h
    w = _lrint(h * aspect)
    if w * h < min_area:
        h += 1
        w = _lrint(h * aspect)
    if w * h < min_area or w * h > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(torch.randint(0, height - h + 1, (), generator=gen)) if height > h else 0
    x = int(torch.randint(0, width - w + 1, (), generator=gen)) if width > w else 0
    return x, y, x + w, y + h


def _sample_distorted(op: str, gen: torch.Generator, image_size: Any, bounding_boxes: Any,
                      min_object_covered: Any, aspect_ratio_range: Any, area_range: Any,
                      max_attempts: Any, use_image_if_no_bounding_boxes: Any
                      ) -> tuple[Tensor, Tensor, Tensor]:
    shape = _ints(image_size, "image_size", op)
    if len(shape) != 3:
        raise InvalidArgumentError(None, None, f"{op}: image_size must be [height, width, "
                                   f"channels], got {shape}.")
    height, width = shape[0], shape[1]
    if height <= 0 or width <= 0:
        raise InvalidArgumentError(None, None, f"{op}: image height and width must be positive, "
                                   f"got {shape}.")
    boxes = _floats(bounding_boxes, "bounding_boxes", op)
    if boxes.shape[-1:] != (4,) or boxes.dim() != 3:
        raise InvalidArgumentError(None, None, f"{op}: bounding_boxes must be [batch, N, 4], "
                                   f"got shape {list(boxes.shape)}.")
    rects = [(b[1] * width, b[0] * height, b[3] * width, b[2] * height)
             for b in boxes.reshape(-1, 4).tolist()]
    if not rects:
        if not use_image_if_no_bounding_boxes:
            raise InvalidArgumentError(
                None, None, "No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.")
        rects = [(0.0, 0.0, float(width), float(height))]
    covered = float(min_object_covered.item() if isinstance(min_object_covered, Tensor)
                    else min_object_covered)
    if covered < 0:
        raise InvalidArgumentError(None, None, f"{op}: min_object_covered must be >= 0, got "
                                   f"{covered}.")
    aspects = [float(v) for v in (aspect_ratio_range or (0.75, 1.33))]
    areas = [float(v) for v in (area_range or (0.05, 1.0))]
    if len(aspects) != 2 or aspects[0] <= 0 or aspects[0] > aspects[1]:
        raise InvalidArgumentError(None, None, f"{op}: aspect_ratio_range must be two positive "
                                   f"increasing floats, got {aspects}.")
    if len(areas) != 2 or not 0 < areas[0] <= areas[1] <= 1:
        raise InvalidArgumentError(None, None, f"{op}: area_range must be two floats in (0, 1], "
                                   f"increasing, got {areas}.")
    attempts = 100 if max_attempts is None else int(max_attempts)
    if attempts <= 0:
        raise InvalidArgumentError(None, None, f"{op}: max_attempts must be positive, got "
                                   f"{attempts}.")
    crop = None
    for _ in range(attempts):
        aspect = aspects[0] + float(torch.rand((), generator=gen)) * (aspects[1] - aspects[0])
        rect = _random_crop_rect(gen, width, height, aspect, (areas[0], areas[1]))
        if rect is not None and _covers(rect, rects, covered):
            crop = rect
            break
    if crop is None:
        crop = (0, 0, width, height)
    x0, y0, x1, y1 = crop
    begin = torch.tensor([y0, x0, 0], dtype=torch.int32)
    size = torch.tensor([y1 - y0, x1 - x0, -1], dtype=torch.int32)
    bbox = torch.tensor([[[y0 / height, x0 / width, y1 / height, x1 / width]]],
                        dtype=torch.float32)
    return begin, size, bbox


def _covers(rect: tuple[int, int, int, int], boxes: list, min_covered: float) -> bool:
    for bx0, by0, bx1, by1 in boxes:
        area = (bx1 - bx0) * (by1 - by0)
        if area <= 0:
            continue
        iw = min(rect[2], bx1) - max(rect[0], bx0)
        ih = min(rect[3], by1) - max(rect[1], by0)
        inter = max(iw, 0) * max(ih, 0)
        if inter / area >= min_covered:
            return True
    return False


def sample_distorted_bounding_box(image_size: Any, bounding_boxes: Any, seed: int = 0,
                                  min_object_covered: float = 0.1,
                                  aspect_ratio_range: Any = None, area_range: Any = None,
                                  max_attempts: int | None = None,
                                  use_image_if_no_bounding_boxes: bool | None = None,
                                  name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Generates a single randomly distorted bounding box for an image (Inception-style data
    augmentation): a crop with an aspect ratio in `aspect_ratio_range` (default [0.75, 1.33]),
    an area fraction in `area_range` (default [0.05, 1]) that covers at least
    `min_object_covered` of one of `bounding_boxes`; the whole image after `max_attempts`
    (default 100) failures. Same contract as TF, not TF's random values.

    Returns:
        `(begin, size, bboxes)`: int32 `[offset_y, offset_x, 0]`, int32
        `[target_height, target_width, -1]` (for `tf.slice`) and float32 `[1, 1, 4]`.
    """
    op = "sample_distorted_bounding_box"
    gen = _op_seed_generator(seed if seed else None, torch.device("cpu"), op)
    if gen is None:
        gen = torch.Generator()
        gen.seed()
    return _sample_distorted(op, gen, image_size, bounding_boxes, min_object_covered,
                             aspect_ratio_range, area_range, max_attempts,
                             use_image_if_no_bounding_boxes)


def stateless_sample_distorted_bounding_box(image_size: Any, bounding_boxes: Any, seed: Any,
                                            min_object_covered: float = 0.1,
                                            aspect_ratio_range: Any = None,
                                            area_range: Any = None,
                                            max_attempts: int | None = None,
                                            use_image_if_no_bounding_boxes: bool | None = None,
                                            name: str | None = None
                                            ) -> tuple[Tensor, Tensor, Tensor]:
    """`sample_distorted_bounding_box`, deterministic given `seed` (shape [2] integers).

    Returns:
        `(begin, size, bboxes)` as `sample_distorted_bounding_box`.
    """
    op = "stateless_sample_distorted_bounding_box"
    gen = _stateless(seed, op)
    return _sample_distorted(op, gen, image_size, bounding_boxes, min_object_covered,
                             aspect_ratio_range, area_range, max_attempts,
                             use_image_if_no_bounding_boxes)


