"""Records TensorFlow 2.15's outputs of tf.signal's ops to tests/signal/fixtures/signal.json.

Run by hand with a TensorFlow venv (TensorFlow is never a dependency of the package or tests):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_signal_fixtures.py

Each case is {"op", "args" (JSON values; arrays as {"array", "dtype", "shape"}, complex arrays as
{"real", "imag", "dtype", "shape"}), "kwargs", "expected" (same encoding), "expected_dtype"};
tests/signal/test_signal.py replays them. tf.signal.fftnd/ifftnd/rfftnd/irfftnd have no CPU
kernel in TF 2.15, so they are not recorded (the tests check them against numpy.fft).
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "signal",
                   "fixtures", "signal.json")
rng = np.random.default_rng(32)
SIG = rng.standard_normal((2, 37)).astype(np.float32)
SIG64 = rng.standard_normal((3, 10))
X3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
C3 = (rng.standard_normal((2, 3, 5)) + 1j * rng.standard_normal((2, 3, 5))).astype(np.complex64)
C128 = rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))


def _enc(x):
    if isinstance(x, tf.Tensor):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        if np.iscomplexobj(x):
            return {"real": x.real.tolist(), "imag": x.imag.tolist(), "dtype": str(x.dtype),
                    "shape": list(x.shape)}
        return {"array": x.tolist(), "dtype": str(x.dtype), "shape": list(x.shape)}
    return x


cases: list[dict] = []
WINDOWS = {"hann_window": tf.signal.hann_window, "hamming_window": tf.signal.hamming_window,
           "vorbis_window": tf.signal.vorbis_window, "kaiser_window": tf.signal.kaiser_window,
           "kaiser_bessel_derived_window": tf.signal.kaiser_bessel_derived_window,
           "inverse_stft_window_fn(4)": tf.signal.inverse_stft_window_fn(4),
           "inverse_stft_window_fn(3,hamming)": tf.signal.inverse_stft_window_fn(
               3, forward_window_fn=tf.signal.hamming_window)}


def record(op: str, *args, **kwargs):
    fn = getattr(tf.signal, op)
    call_kwargs = {k: (WINDOWS[v] if k in ("window_fn", "forward_window_fn") and v else v)
                   for k, v in kwargs.items()}
    call_kwargs = {k: (tf.as_dtype(v) if k == "dtype" else v) for k, v in call_kwargs.items()}
    out = fn(*[tf.constant(a) if isinstance(a, np.ndarray) else a for a in args], **call_kwargs)
    cases.append({"op": op, "args": [_enc(a) for a in args], "kwargs": kwargs,
                  "expected": _enc(out), "expected_dtype": out.dtype.name})


def record_window(label: str, *args, **kwargs):
    out = WINDOWS[label](*args, **{k: tf.as_dtype(v) if k == "dtype" else v
                                   for k, v in kwargs.items()})
    cases.append({"op": "window:" + label, "args": list(args), "kwargs": kwargs,
                  "expected": _enc(out), "expected_dtype": out.dtype.name})


# ---------------------------------------------------------------------------- FFTs
record("fft", C3)
record("ifft", C3)
record("fft2d", C3)
record("ifft2d", C128)
record("fft3d", C3)
record("ifft3d", C3)
record("fft", C128)
record("rfft", SIG)
record("rfft", SIG, fft_length=[16])
record("rfft", SIG, fft_length=[50])
record("rfft", SIG64)
record("irfft", C3)
record("irfft", C3, fft_length=[9])
record("irfft", C3, fft_length=[4])
record("irfft", C128)
record("rfft2d", X3)
record("rfft2d", X3, fft_length=[2, 6])
record("irfft2d", C3)
record("irfft2d", C3, fft_length=[4, 7])
record("rfft3d", X3)
record("irfft3d", C3, fft_length=[2, 3, 8])
record("fftshift", X3)
record("fftshift", X3, axes=1)
record("fftshift", X3, axes=[0, -1])
record("ifftshift", X3)
record("ifftshift", np.arange(5), axes=0)

# ---------------------------------------------------------------------------- DCT
for t in (1, 2, 3, 4):
    record("dct", SIG[:, :9], type=t)
    record("idct", SIG[:, :9], type=t)
    record("dct", SIG[:, :8], type=t, n=12)
    if t != 1:
        record("dct", SIG[:, :9], type=t, norm="ortho")
        record("idct", SIG[:, :9], type=t, norm="ortho")
        record("dct", SIG[:, :9], type=t, n=5, norm="ortho")
record("dct", SIG64, type=2)
record("mfccs_from_log_mel_spectrograms", X3)
record("mfccs_from_log_mel_spectrograms", SIG64)

# ---------------------------------------------------------------------------- frames
record("frame", SIG, 8, 3)
record("frame", SIG, 8, 3, pad_end=True)
record("frame", SIG, 8, 5, pad_end=True, pad_value=2.5)
record("frame", X3, 2, 1, axis=1)
record("frame", X3, 2, 2, axis=0, pad_end=True)
record("frame", X3, 3, 2, axis=-2, pad_end=True, pad_value=-1.0)
record("frame", np.arange(7), 3, 2, pad_end=True, pad_value=9)
record("frame", SIG[0, :3], 5, 2)
record("overlap_and_add", X3, 2)
record("overlap_and_add", X3, 1)
record("overlap_and_add", X3, 6)
record("overlap_and_add", SIG.reshape(2, 1, 37)[:, :, :12].reshape(2, 3, 4), 3)

# ---------------------------------------------------------------------------- windows
for label in ("hann_window", "hamming_window", "vorbis_window", "kaiser_window",
              "kaiser_bessel_derived_window"):
    for n in (1, 2, 7, 16):
        record_window(label, n)
record_window("hann_window", 9, periodic=False)
record_window("hamming_window", 8, periodic=False)
record_window("hann_window", 10, dtype="float64")
record_window("kaiser_window", 11, beta=3.5)
record_window("kaiser_window", 6, 0.0, dtype="float64")
record_window("kaiser_bessel_derived_window", 10, beta=5.0)
record_window("kaiser_bessel_derived_window", 9)
record_window("inverse_stft_window_fn(4)", 16, dtype="float32")
record_window("inverse_stft_window_fn(3,hamming)", 7, dtype="float64")

# ---------------------------------------------------------------------------- stft & co
record("stft", SIG, 16, 8)
record("stft", SIG, 10, 4, fft_length=12, pad_end=True)
record("stft", SIG, 8, 3, window_fn="hamming_window")
record("stft", SIG, 8, 4, window_fn=None)
record("stft", SIG64, 5, 2)
STFT = tf.signal.stft(tf.constant(SIG), 16, 4).numpy()
record("inverse_stft", STFT, 16, 4)
record("inverse_stft", STFT, 16, 4, window_fn="inverse_stft_window_fn(4)")
record("inverse_stft", STFT, 12, 4, fft_length=16, window_fn=None)
record("inverse_stft", STFT, 20, 5)  # frame_length > fft_length: zero-padded frames
record("mdct", SIG, 8)
record("mdct", SIG, 12, pad_end=True, norm="ortho")
record("mdct", SIG, 8, window_fn="kaiser_bessel_derived_window")
record("mdct", SIG, 8, window_fn=None)
MDCT = tf.signal.mdct(tf.constant(SIG), 8).numpy()
record("inverse_mdct", MDCT)
record("inverse_mdct", MDCT, norm="ortho")
record("inverse_mdct", MDCT, window_fn=None)

# ---------------------------------------------------------------------------- mel
record("linear_to_mel_weight_matrix")
record("linear_to_mel_weight_matrix", 10, 33, 16000, 0.0, 8000.0)
record("linear_to_mel_weight_matrix", num_mel_bins=40, num_spectrogram_bins=257,
       sample_rate=22050, lower_edge_hertz=20.0, upper_edge_hertz=7600.0, dtype="float64")
record("linear_to_mel_weight_matrix", 3, 5, 100, 10.0, 50.0)

os.makedirs(os.path.dirname(OUT), exist_ok=True)
tmp = OUT + ".tmp"
with open(tmp, "w") as f:  # one case a line
    f.write('{"tensorflow": ' + json.dumps(tf.__version__) + ', "cases": [\n')
    f.write(",\n".join(json.dumps(c) for c in cases))
    f.write("\n]}\n")
os.replace(tmp, OUT)
print(f"wrote {len(cases)} cases to {OUT}")
