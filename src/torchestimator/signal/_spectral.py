"""tf.signal.stft / inverse_stft / inverse_stft_window_fn and mdct / inverse_mdct.

TF frames the signal from its first sample (no centering, unlike torch.stft's default) and pads
only the end (`pad_end`); these functions follow TF.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator.errors import InvalidArgumentError
from torchestimator.signal._common import check_float, real_tensor, static_int
from torchestimator.signal._dct import dct
from torchestimator.signal._fft import _complex_tensor, irfft, rfft
from torchestimator.signal._frames import frame, overlap_and_add
from torchestimator.signal._windows import hann_window, vorbis_window

Tensor = torch.Tensor


def _default_fft_length(frame_length: int) -> int:
    return 1 << max(0, (frame_length - 1).bit_length())  # 2 ** ceil(log2(frame_length))


def _signal(value: Any, op: str) -> Tensor:
    tensor = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=torch.float32)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: `signals` must be a float tensor, got string values.")
    check_float(tensor, op)
    return tensor


def stft(signals: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
         window_fn: Callable | None = hann_window, pad_end: bool = False,
         name: str | None = None) -> Tensor:
    """Computes the Short-time Fourier Transform of `signals` (`[..., samples]`).

    Frames start at sample 0, `frame_step` apart; each is multiplied by
    `window_fn(frame_length, dtype=signals.dtype)` and transformed by an `fft_length`-point
    rfft (default: the smallest power of 2 >= `frame_length`).

    Returns:
        A complex tensor of shape `[..., frames, fft_length // 2 + 1]`.
    """
    x = _signal(signals, "stft")
    frame_length = static_int(frame_length, "frame_length", "stft")
    frame_step = static_int(frame_step, "frame_step", "stft")
    fft_length = _default_fft_length(frame_length) if fft_length is None else \
        static_int(fft_length, "fft_length", "stft")
    framed = frame(x, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype).to(framed.device)
    return rfft(framed, [fft_length])


def inverse_stft_window_fn(frame_step: Any, forward_window_fn: Callable = hann_window,
                           name: str | None = None) -> Callable:
    """Generates a window function for `inverse_stft` that inverts `stft` with
    `forward_window_fn`: the forward window divided by the sum of its overlapping squares.

    Returns:
        A callable `(frame_length, dtype) -> window`.
    """
    frame_step = static_int(frame_step, "frame_step", "inverse_stft_window_fn")

    def inverse_stft_window_fn_inner(frame_length: Any, dtype: Any) -> Tensor:
        frame_length = static_int(frame_length, "frame_length", "inverse_stft_window_fn")
        forward = forward_window_fn(frame_length, dtype=dtype)
        denom = torch.square(forward)
        overlaps = -(-frame_length // frame_step)
        denom = torch.nn.functional.pad(denom, [0, overlaps * frame_step - frame_length])
        denom = denom.reshape(overlaps, frame_step).sum(0, keepdim=True)
        denom = denom.repeat(overlaps, 1).reshape(overlaps * frame_step)
        return forward / denom[:frame_length]

    return inverse_stft_window_fn_inner


def inverse_stft(stfts: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
                 window_fn: Callable | None = hann_window, name: str | None = None) -> Tensor:
    """Computes the inverse Short-time Fourier Transform of `stfts` (`[..., frames, bins]`).

    Each frame is irfft'd to `fft_length` samples, cut (or zero-padded) to `frame_length`,
    multiplied by `window_fn(frame_length, dtype)` and overlap-added `frame_step` apart. Use
    `window_fn=tf.signal.inverse_stft_window_fn(frame_step)` for a perfect reconstruction.

    Returns:
        A real tensor of shape `[..., samples]`.
    """
    x = _complex_tensor(stfts, "inverse_stft")
    frame_length = static_int(frame_length, "frame_length", "inverse_stft")
    frame_step = static_int(frame_step, "frame_step", "inverse_stft")
    fft_length = _default_fft_length(frame_length) if fft_length is None else \
        static_int(fft_length, "fft_length", "inverse_stft")
    if x.dim() < 2:
        raise ValueError(f"inverse_stft: Shape {tuple(x.shape)} must have rank at least 2 "
                         "('stfts' is [..., frames, fft_unique_bins]).")
    real_frames = irfft(x, [fft_length])[..., :frame_length]
    if real_frames.shape[-1] < frame_length:
        real_frames = torch.nn.functional.pad(real_frames,
                                              [0, frame_length - real_frames.shape[-1]])
    if window_fn is not None:
        window = window_fn(frame_length, dtype=real_frames.dtype)
        real_frames = real_frames * window.to(real_frames.device)
    return overlap_and_add(real_frames, frame_step)


def mdct(signals: Any, frame_length: Any, window_fn: Callable | None = vorbis_window,
         pad_end: bool = False, norm: str | None = None, name: str | None = None) -> Tensor:
    """Computes the Modified Discrete Cosine Transform of `signals` (`[..., samples]`).

    Frames of `frame_length` (a multiple of 4) overlap by half, are windowed (default: Vorbis;
    None scales by 1/sqrt(2)), folded and transformed by a DCT-IV (`norm`: None or "ortho").

    Returns:
        A tensor of shape `[..., frames, frame_length // 2]`.
    """
    x = _signal(signals, "mdct")
    frame_length = static_int(frame_length, "frame_length", "mdct")
    if frame_length % 4 != 0:
        raise ValueError(f"The frame length must be a multiple of 4. (mdct: got {frame_length})")
    framed = frame(x, frame_length, frame_length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype).to(framed.device)
    else:
        framed = framed * (1.0 / math.sqrt(2))
    a, b, c, d = torch.split(framed, frame_length // 4, dim=-1)
    rearranged = torch.cat([-c.flip(-1) - d, a - b.flip(-1)], -1)
    return dct(rearranged, type=4, norm=norm)


def inverse_mdct(mdcts: Any, window_fn: Callable | None = vorbis_window, norm: str | None = None,
                 name: str | None = None) -> Tensor:
    """Computes the inverse Modified Discrete Cosine Transform of `mdcts` (`[..., frames, N]`).

    With the same window as `mdct` (Princen-Bradley), `inverse_mdct(mdct(x))` reconstructs `x`
    except at the first and last half frame.

    Returns:
        A tensor of shape `[..., samples]`.
    """
    x = real_tensor(mdcts, "inverse_mdct", "mdcts")
    check_float(x, "inverse_mdct")
    half = x.shape[-1]
    if norm is None:
        idct4 = (0.5 / half) * dct(x, type=4)
    elif norm == "ortho":
        idct4 = dct(x, type=4, norm="ortho")
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if half % 2:
        raise InvalidArgumentError(
            None, None, f"inverse_mdct: Number of ways to split should evenly divide the split "
            f"dimension, but got split_dim {x.dim() - 1} (size = {half}) and num_split 2: the "
            "last dimension of `mdcts` (frame_length // 2) must be even.")
    first, second = torch.split(idct4, half // 2, dim=-1)
    real_frames = torch.cat([second, -second.flip(-1), -first.flip(-1), -first], -1)
    if window_fn is not None:
        real_frames = real_frames * window_fn(2 * half, dtype=real_frames.dtype).to(x.device)
    else:
        real_frames = real_frames * (1.0 / math.sqrt(2))
    return overlap_and_add(real_frames, half)
