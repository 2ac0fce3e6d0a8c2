"""tf.image's measures and filters: total_variation, psnr, ssim, ssim_multiscale,
image_gradients and sobel_edges (TF 2.15's definitions, differentiable, on the input's device)."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._ops.image_ops import _image, convert_image_dtype
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor
_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def total_variation(images: Any, name: str | None = None) -> Tensor:
    """Calculates the (anisotropic) total variation: the sum of the absolute differences of
    neighbouring pixels, vertically and horizontally.

    Returns:
        A scalar for a 3-D image, a `[batch]` tensor for a 4-D batch; `images`' dtype.
    """
    x = _image(images, "total_variation")
    if x.dim() == 3:
        dims: tuple[int, ...] = (0, 1, 2)
    elif x.dim() == 4:
        dims = (1, 2, 3)
    else:
        raise ValueError(f"total_variation: 'images' must be either 3 or 4-dimensional, got "
                         f"shape {tuple(x.shape)}.")
    dif1 = x[..., 1:, :, :] - x[..., :-1, :, :]
    dif2 = x[..., :, 1:, :] - x[..., :, :-1, :]
    return (dif1.abs().sum(dims) + dif2.abs().sum(dims)).to(x.dtype)


def _check_shapes(a: Tensor, b: Tensor, op: str) -> None:
    for t in (a, b):
        if t.dim() < 3:
            raise ValueError(f"{op}: the images must be at least 3-D [..., height, width, "
                             f"channels], got shape {tuple(t.shape)}.")
    if a.shape[-3:] != b.shape[-3:]:
        raise InvalidArgumentError(None, None, f"{op}: Incompatible shapes: {list(a.shape)} vs. "
                                   f"{list(b.shape)}")
    try:
        torch.broadcast_shapes(a.shape[:-3], b.shape[:-3])
    except RuntimeError:
        raise InvalidArgumentError(None, None, f"{op}: Incompatible shapes: {list(a.shape)} vs. "
                                   f"{list(b.shape)}") from None


def _float_pair(a: Any, b: Any, max_val: Any, op: str) -> tuple[Tensor, Tensor, Tensor]:
    a = _image(a, op)
    b = _image(b, op)
    _check_shapes(a, b, op)
    if a.dtype is not b.dtype:
        raise TypeError(f"{op}: a and b must have the same dtype, got {a.dtype} and {b.dtype}.")
    # TF: max_val is cast to the images' dtype, then scaled as the images are.
    if isinstance(max_val, Tensor):
        mv = max_val.to(a.device)
    else:
        mv = torch.tensor(max_val, device=a.device)
    if not a.dtype.is_floating_point:
        mv = mv.to(torch.int64).to(a.dtype) if mv.is_floating_point() else mv.to(a.dtype)
    else:
        mv = mv.to(a.dtype)
    mv = convert_image_dtype(mv, torch.float32)
    return convert_image_dtype(a, torch.float32), convert_image_dtype(b, torch.float32), mv


def psnr(a: Any, b: Any, max_val: Any, name: str | None = None) -> Tensor:
    """Returns the Peak Signal-to-Noise Ratio between `a` and `b`:
    `20 log10(max_val) - 10 log10(mse)`, the mse over the last three dimensions.

    Returns:
        A float32 tensor of the batch shape (a scalar for one image); inf where a == b.
    """
    a, b, mv = _float_pair(a, b, max_val, "psnr")
    mse = torch.mean(torch.square(a - b), dim=(-3, -2, -1))
    return 20 * torch.log(mv) / math.log(10.0) - (10 / math.log(10)) * torch.log(mse)


def _gauss_kernel(size: int, sigma: float, device: torch.device) -> Tensor:
    coords = torch.arange(size, device=device, dtype=torch.float32) - (size - 1) / 2.0
    g = torch.square(coords) * (-0.5 / (sigma * sigma))
    g = g.reshape(1, -1) + g.reshape(-1, 1)
    return torch.softmax(g.reshape(-1), 0).reshape(size, size)


def _ssim_per_channel(x: Tensor, y: Tensor, max_val: Tensor, filter_size: int,
                      filter_sigma: float, k1: float, k2: float, return_index_map: bool
                      ) -> tuple[Tensor, Tensor]:
    height, width, channels = x.shape[-3:]
    if height < filter_size or width < filter_size:
        raise InvalidArgumentError(
            None, None, f"ssim: the images ({height}x{width}) are smaller than filter_size "
            f"({filter_size}); use a smaller filter_size.")
    kernel = _gauss_kernel(filter_size, filter_sigma, x.device)
    weight = kernel.expand(channels, 1, filter_size, filter_size)

    def reducer(t: Tensor) -> Tensor:
        lead = t.shape[:-3]
        flat = t.reshape(-1, *t.shape[-3:]).permute(0, 3, 1, 2)
        out = F.conv2d(flat, weight, groups=channels)
        return out.permute(0, 2, 3, 1).reshape(*lead, *out.shape[-2:], channels)

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(x), reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = torch.square(mean0) + torch.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(torch.square(x) + torch.square(y))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    ssim_val = luminance * cs if return_index_map else torch.mean(luminance * cs, (-3, -2))
    return ssim_val, torch.mean(cs, (-3, -2))


def ssim(img1: Any, img2: Any, max_val: Any, filter_size: int = 11, filter_sigma: float = 1.5,
         k1: float = 0.01, k2: float = 0.03, return_index_map: bool = False) -> Tensor:
    """Computes the Structural Similarity index between `img1` and `img2` (Wang et al. 2004),
    with a `filter_size` Gaussian window of `filter_sigma`, averaged over the channels.

    Returns:
        A float32 tensor of the batch shape (with `return_index_map`, the per-pixel map
        `[..., height - filter_size + 1, width - filter_size + 1]`).
    """
    x, y, mv = _float_pair(img1, img2, max_val, "ssim")
    x, y = torch.broadcast_tensors(x, y)
    per_channel, _ = _ssim_per_channel(x, y, mv, int(filter_size), float(filter_sigma), k1, k2,
                                       return_index_map)
    return per_channel.mean(-1)


def ssim_multiscale(img1: Any, img2: Any, max_val: Any,
                    power_factors: Any = _MSSSIM_WEIGHTS, filter_size: int = 11,
                    filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> Tensor:
    """Computes the multi-scale SSIM (Wang et al. 2003): `len(power_factors)` scales, each
    halving the images by 2x2 average pooling (odd sizes symmetric-padded first).

    Returns:
        A float32 tensor of the batch shape.
    """
    x, y, mv = _float_pair(img1, img2, max_val, "ssim_multiscale")
    x, y = torch.broadcast_tensors(x, y)
    heads = x.shape[:-3]
    weights = torch.as_tensor(power_factors, dtype=torch.float32, device=x.device)
    imgs = [x, y]
    mcs = []
    per_channel = None
    for k in range(len(weights)):
        if k > 0:
            flat = [t.reshape(-1, *t.shape[-3:]) for t in imgs]
            rem_h, rem_w = flat[0].shape[1] % 2, flat[0].shape[2] % 2
            if rem_h or rem_w:  # TF's SYMMETRIC pad at the end repeats the last row/column
                flat = [torch.cat([t, t[:, -1:]], 1) if rem_h else t for t in flat]
                flat = [torch.cat([t, t[:, :, -1:]], 2) if rem_w else t for t in flat]
            pooled = [F.avg_pool2d(t.permute(0, 3, 1, 2), 2, 2).permute(0, 2, 3, 1)
                      for t in flat]
            imgs = [t.reshape(*heads, *t.shape[1:]) for t in pooled]
        per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], mv, int(filter_size),
                                            float(filter_sigma), k1, k2, False)
        mcs.append(torch.relu(cs))
    mcs.pop()
    stacked = torch.stack(mcs + [torch.relu(per_channel)], -1)
    return torch.prod(torch.pow(stacked, weights), -1).mean(-1)


def image_gradients(image: Any) -> tuple[Tensor, Tensor]:
    """Returns the image gradients `(dy, dx)` of a 4-D `[batch, height, width, depth]` image:
    forward differences, zero in the last row (dy) and column (dx).

    Returns:
        Two tensors of `image`'s shape and dtype.
    """
    x = _image(image, "image_gradients")
    if x.dim() != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{tuple(x.shape)}.")
    dy = x[:, 1:] - x[:, :-1]
    dx = x[:, :, 1:] - x[:, :, :-1]
    dy = torch.cat([dy, torch.zeros_like(x[:, :1])], 1)
    dx = torch.cat([dx, torch.zeros_like(x[:, :, :1])], 2)
    return dy, dx


def sobel_edges(image: Any) -> Tensor:
    """Returns a tensor holding the Sobel edge maps of a 4-D `[batch, h, w, d]` image
    (reflect-padded), the vertical (dy) and horizontal (dx) responses stacked last.

    Returns:
        A tensor `[batch, h, w, d, 2]` of `image`'s dtype.
    """
    x = _image(image, "sobel_edges")
    if x.dim() != 4:
        raise ValueError(f"sobel_edges: image must be 4-D [batch, height, width, depth], got "
                         f"shape {tuple(x.shape)}.")
    if not x.dtype.is_floating_point:
        raise TypeError(f"sobel_edges: image must be a float tensor, got {x.dtype}; use "
                        "tf.image.convert_image_dtype first.")
    depth = x.shape[-1]
    kernels = torch.tensor([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                            [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], dtype=x.dtype,
                           device=x.device)
    weight = kernels.unsqueeze(1).repeat(depth, 1, 1, 1)  # [depth * 2, 1, 3, 3]
    padded = F.pad(x.permute(0, 3, 1, 2), [1, 1, 1, 1], mode="reflect")
    out = F.conv2d(padded, weight, groups=depth)  # channels: d0k0, d0k1, d1k0, ...
    b, _, h, w = out.shape
    return out.reshape(b, depth, 2, h, w).permute(0, 3, 4, 1, 2)
