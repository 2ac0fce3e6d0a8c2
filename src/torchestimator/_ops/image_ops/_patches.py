"""tf.image.extract_patches."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._ops.image_ops._common import Tensor, _image
from torchestimator.errors import InvalidArgumentError


# ---------------------------------------------------------------------------- patches
def _four(value: Any, name: str) -> list[int]:
    values = [int(v) for v in value]
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise InvalidArgumentError(
            None, None, f"extract_patches: `{name}` must be [1, rows, cols, 1], got {value!r}."
        )
    return values


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str,
                    name: str | None = None) -> Tensor:
    """Extracts `sizes` patches from `images`, `strides` apart, sampling every `rates` pixels
    (TF's `tf.image.extract_patches`; padding "VALID" or "SAME").

    Returns:
        A `[batch, out_rows, out_cols, size_rows * size_cols * depth]` tensor, each patch
        flattened in (row, column, depth) order.
    """
    images = _image(images, "extract_patches")
    if images.dim() != 4:
        raise ValueError(
            f"extract_patches: images must be 4-D [batch, rows, cols, depth], got shape "
            f"{tuple(images.shape)}."
        )
    _, kh, kw, _ = _four(sizes, "sizes")
    _, sh, sw, _ = _four(strides, "strides")
    _, rh, rw, _ = _four(rates, "rates")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"extract_patches: padding must be 'VALID' or 'SAME', got {padding!r}.")
    n, height, width, depth = images.shape
    eff_h, eff_w = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    x = images.permute(0, 3, 1, 2)
    if padding == "SAME":
        out_h, out_w = -(-height // sh), -(-width // sw)
        pad_h = max((out_h - 1) * sh + eff_h - height, 0)
        pad_w = max((out_w - 1) * sw + eff_w - width, 0)
        x = F.pad(x, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))
    else:
        out_h, out_w = (height - eff_h) // sh + 1, (width - eff_w) // sw + 1
    if out_h <= 0 or out_w <= 0:
        return images.new_zeros((n, max(out_h, 0), max(out_w, 0), kh * kw * depth))
    # unfold works on floating tensors; integer images go through float64 (exact below 2**53).
    work = x if x.dtype.is_floating_point else x.to(torch.float64)
    cols = F.unfold(work, (kh, kw), dilation=(rh, rw), stride=(sh, sw))  # [N, C*kh*kw, L]
    cols = cols.reshape(n, depth, kh * kw, out_h, out_w).permute(0, 3, 4, 2, 1)
    return cols.reshape(n, out_h, out_w, kh * kw * depth).to(images.dtype)
