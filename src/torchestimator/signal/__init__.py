"""`tf.signal`: TensorFlow 2.15's signal processing ops (FFTs, DCTs, framing, windows, STFT,
mel filters, MFCCs, MDCT) over torch.fft, running on the input's device and differentiable."""

from torchestimator.signal._dct import dct, idct, mfccs_from_log_mel_spectrograms
from torchestimator.signal._fft import (
    fft,
    fft2d,
    fft3d,
    fftnd,
    fftshift,
    ifft,
    ifft2d,
    ifft3d,
    ifftnd,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    irfftnd,
    rfft,
    rfft2d,
    rfft3d,
    rfftnd,
)
from torchestimator.signal._frames import frame, overlap_and_add
from torchestimator.signal._mel import linear_to_mel_weight_matrix
from torchestimator.signal._spectral import (
    inverse_mdct,
    inverse_stft,
    inverse_stft_window_fn,
    mdct,
    stft,
)
from torchestimator.signal._windows import (
    hamming_window,
    hann_window,
    kaiser_bessel_derived_window,
    kaiser_window,
    vorbis_window,
)

__all__ = [
    "dct", "fft", "fft2d", "fft3d", "fftnd", "fftshift", "frame", "hamming_window",
    "hann_window", "idct", "ifft", "ifft2d", "ifft3d", "ifftnd", "ifftshift", "inverse_mdct",
    "inverse_stft", "inverse_stft_window_fn", "irfft", "irfft2d", "irfft3d", "irfftnd",
    "kaiser_bessel_derived_window", "kaiser_window", "linear_to_mel_weight_matrix", "mdct",
    "mfccs_from_log_mel_spectrograms", "overlap_and_add", "rfft", "rfft2d", "rfft3d", "rfftnd",
    "stft", "vorbis_window",
]

# Last: tf.signal ops given symbolic Keras tensors record TFOpLambda layers (_ops/symbolic_dispatch.py)
from torchestimator._ops.symbolic_dispatch import wrap_namespace as _wrap_namespace  # noqa: E402

_wrap_namespace(globals(), "signal")
