"""tf.signal: FFTs, DCTs, framing, windows, STFT, MDCT and mel filters.

Values are replayed from TensorFlow 2.15's own outputs (fixtures/signal.json, written by
tools/make_tf_signal_fixtures.py); the N-D FFTs (no CPU kernel in TF 2.15) against numpy.fft.
"""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "signal.json")
with open(FIXTURE) as _f:
    _CASES = json.load(_f)["cases"]


def _dec(a):
    if isinstance(a, dict) and "real" in a:
        value = np.array(a["real"]) + 1j * np.array(a["imag"])
        return value.astype(a["dtype"]).reshape(a["shape"])
    if isinstance(a, dict) and "array" in a:
        return np.array(a["array"], dtype=a["dtype"]).reshape(a["shape"])
    return a


_WINDOWS = {
    "hann_window": tf.signal.hann_window, "hamming_window": tf.signal.hamming_window,
    "vorbis_window": tf.signal.vorbis_window, "kaiser_window": tf.signal.kaiser_window,
    "kaiser_bessel_derived_window": tf.signal.kaiser_bessel_derived_window,
    "inverse_stft_window_fn(4)": tf.signal.inverse_stft_window_fn(4),
    "inverse_stft_window_fn(3,hamming)": tf.signal.inverse_stft_window_fn(
        3, forward_window_fn=tf.signal.hamming_window),
}


def _run(case):
    kwargs = dict(case["kwargs"])
    for key in ("window_fn", "forward_window_fn"):
        if kwargs.get(key):
            kwargs[key] = _WINDOWS[kwargs[key]]
    if "dtype" in kwargs:
        kwargs["dtype"] = tf.as_dtype(kwargs["dtype"])
    if case["op"].startswith("window:"):
        return _WINDOWS[case["op"][7:]](*case["args"], **kwargs)
    args = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a  # the fixture's tf.constant
            for a in map(_dec, case["args"])]
    return getattr(tf.signal, case["op"])(*args, **kwargs)


@pytest.mark.parametrize("case", _CASES, ids=[f"{c['op']}-{i}" for i, c in enumerate(_CASES)])
def test_matches_tensorflow(case):
    out = _run(case)
    assert tf.as_dtype(case["expected_dtype"]) is out.dtype
    expected = _dec(case["expected"])
    assert tuple(out.shape) == expected.shape
    double = out.dtype in (torch.float64, torch.complex128)
    tol = 1e-9 if double else 2e-5
    scale = max(1.0, float(np.abs(expected).max()) if expected.size else 1.0)
    np.testing.assert_allclose(out.numpy(), expected, rtol=tol, atol=tol * scale)


def test_fixture_covers_every_name():
    ops = {c["op"].split(":")[-1].split("(")[0] for c in _CASES}
    nd = {"fftnd", "ifftnd", "rfftnd", "irfftnd"}
    assert set(tf.signal.__all__) - nd <= ops
    assert len(tf.signal.__all__) == 34


# ---------------------------------------------------------------------------- N-D FFTs
def test_nd_ffts_match_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 5))
    c = x + 1j * rng.standard_normal((3, 4, 5))
    assert tf.signal.fftnd(c).dtype is torch.complex64  # numpy values: TF's complex64 preference
    c = torch.from_numpy(c)
    np.testing.assert_allclose(tf.signal.fftnd(c).numpy(), np.fft.fftn(c.numpy()), atol=1e-9)
    np.testing.assert_allclose(tf.signal.fftnd(c, fft_length=[6, 3], axes=[0, 2],
                                               norm="ortho").numpy(),
                               np.fft.fftn(c.numpy(), s=[6, 3], axes=[0, 2], norm="ortho"), atol=1e-9)
    np.testing.assert_allclose(tf.signal.ifftnd(c, axes=[1], norm="forward").numpy(),
                               np.fft.ifftn(c.numpy(), axes=[1], norm="forward"), atol=1e-9)
    np.testing.assert_allclose(tf.signal.rfftnd(torch.tensor(x)).numpy(), np.fft.rfftn(x),
                               atol=1e-9)
    r = np.fft.rfftn(x, axes=[1, 2])
    np.testing.assert_allclose(tf.signal.irfftnd(torch.tensor(r), fft_length=[4, 5],
                                                 axes=[1, 2]).numpy(), x, atol=1e-9)
    with pytest.raises(ValueError, match="norm"):
        tf.signal.fftnd(c, norm="bogus")


# ---------------------------------------------------------------------------- properties
def test_roundtrips_and_gradients():
    x = torch.randn(3, 40, dtype=torch.float64, requires_grad=True)
    rec = tf.signal.inverse_stft(tf.signal.stft(x, 16, 4), 16, 4,
                                 window_fn=tf.signal.inverse_stft_window_fn(4))
    torch.testing.assert_close(rec[:, 12:28], x[:, 12:28])
    rec.sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad).all()
    y = torch.randn(2, 32, dtype=torch.float64)
    back = tf.signal.inverse_mdct(tf.signal.mdct(y, 8))
    torch.testing.assert_close(back[:, 4:-4], y[:, 4:-4])
    d = torch.randn(4, 7, dtype=torch.float64)
    for t in (2, 3, 4):
        torch.testing.assert_close(tf.signal.idct(tf.signal.dct(d, type=t, norm="ortho"),
                                                  type=t, norm="ortho"), d)
        torch.testing.assert_close(tf.signal.idct(tf.signal.dct(d, type=t), type=t), 14 * d)
    torch.testing.assert_close(tf.signal.idct(tf.signal.dct(d, type=1), type=1), 12 * d)


def test_stft_does_not_center_and_shapes():
    x = torch.arange(20, dtype=torch.float32)
    s = tf.signal.stft(x, 8, 4, window_fn=None)
    assert s.shape == (4, 5) and s.dtype is torch.complex64
    torch.testing.assert_close(s[0, 0].real, x[:8].sum())  # the first frame starts at sample 0
    assert tf.signal.stft(x, 8, 4, pad_end=True).shape == (5, 5)
    assert tf.signal.stft(x, 5, 4).shape == (4, 5)  # fft_length: next power of two, 8


def test_empty_windows():
    for fn in (tf.signal.hann_window, tf.signal.hamming_window, tf.signal.vorbis_window,
               tf.signal.kaiser_bessel_derived_window):
        assert fn(0).shape == (0,) and fn(0).dtype is torch.float32
    assert tf.signal.kaiser_bessel_derived_window(1).shape == (0,)


def test_frame_edge_shapes():
    assert tf.signal.frame(torch.zeros(3), 5, 2).shape == (0, 5)
    assert tf.signal.frame(torch.zeros(0, 4), 2, 1, pad_end=True, axis=0).shape == (0, 2, 4)
    out = tf.signal.frame(torch.arange(7), 3, 2, pad_end=True, pad_value=9)
    assert out.dtype is torch.int64 and out[-1].tolist() == [6, 9, 9]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_runs_on_the_inputs_device():
    x = torch.randn(2, 64, device="cuda")
    assert tf.signal.stft(x, 16, 8).device.type == "cuda"
    assert tf.signal.mdct(x, 8).device.type == "cuda"
    assert tf.signal.dct(x, type=3, norm="ortho").device.type == "cuda"


# ---------------------------------------------------------------------------- errors (TF's)
def test_errors():
    x = np.ones((2, 8), np.float32)
    with pytest.raises(NotImplementedError, match="axis must be -1. Got: 0"):
        tf.signal.dct(x, axis=0)
    with pytest.raises(ValueError, match="Normalization is not supported for the Type-I DCT"):
        tf.signal.dct(x, type=1, norm="ortho")
    with pytest.raises(ValueError, match="Types I, II, III and IV"):
        tf.signal.dct(x, type=5)
    with pytest.raises(ValueError, match="n should be a positive integer or None"):
        tf.signal.dct(x, n=0)
    with pytest.raises(ValueError, match="Unknown normalization"):
        tf.signal.idct(x, norm="foo")
    with pytest.raises(ValueError, match="Type-I DCT requires the dimension to be greater"):
        tf.signal.dct(np.ones(1, np.float32), type=1)
    with pytest.raises(ValueError, match="The frame length must be a multiple of 4"):
        tf.signal.mdct(np.ones(20, np.float32), 6)
    with pytest.raises(InvalidArgumentError, match="evenly divide"):
        tf.signal.inverse_mdct(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="dtype must be a floating point type. Found int32"):
        tf.signal.hann_window(5, dtype=tf.int32)
    with pytest.raises(ValueError, match="dtype must be a floating point type"):
        tf.signal.stft(torch.arange(20), 8, 4)
    with pytest.raises(ValueError, match="rank at least 2"):
        tf.signal.overlap_and_add(np.arange(3.0), 2)
    with pytest.raises(InvalidArgumentError, match="Input must have rank of at least 2"):
        tf.signal.fft2d(np.ones(4, np.complex64))
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64"):
        tf.signal.rfft(torch.ones(4, dtype=torch.complex64))
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128"):
        tf.signal.irfft(torch.ones(4))
    with pytest.raises(ValueError, match="num_mel_bins must be positive"):
        tf.signal.mfccs_from_log_mel_spectrograms(np.ones((2, 0), np.float32))


@pytest.mark.parametrize("kwargs, message", [
    (dict(upper_edge_hertz=5000.0), "upper_edge_hertz must not be larger than the Nyquist"),
    (dict(num_mel_bins=0), "num_mel_bins must be positive. Got: 0"),
    (dict(lower_edge_hertz=-1.0), "lower_edge_hertz must be non-negative. Got: -1.0"),
    (dict(lower_edge_hertz=300.0, upper_edge_hertz=200.0),
     "lower_edge_hertz 300.0 >= upper_edge_hertz 200.0"),
    (dict(sample_rate=0), "sample_rate must be positive. Got: 0"),
    (dict(dtype=tf.int32), "dtype must be a floating point type. Got: int32"),
])
def test_mel_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.signal.linear_to_mel_weight_matrix(**kwargs)


def test_namespace_is_reachable():
    assert tf.signal.stft is not None
    assert "signal" in dir(tf)
