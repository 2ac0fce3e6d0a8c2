"""tf.image's stateless random ops, JPEG-quality ops, JPEG header ops and
(stateless_)sample_distorted_bounding_box: by their contract (range, seed determinism),
the JPEG ones against TensorFlow 2.15's outputs (fixtures/image_jpeg.json, written by
tools/make_tf_image_ops_fixtures.py) within a tolerance (Pillow's libjpeg decodes, not TF's)."""

import base64
import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError

with open(os.path.join(os.path.dirname(__file__), "fixtures", "image_jpeg.json")) as _f:
    JPEG_CASES = json.load(_f)


def _dec(a):
    raw = np.frombuffer(base64.b64decode(a["b64"]), dtype=np.dtype(a["dtype"]).newbyteorder("<"))
    return raw.astype(a["dtype"]).reshape(a["shape"])


SMOOTH = _dec(JPEG_CASES["image"])
JPEG = base64.b64decode(JPEG_CASES["jpeg_b64"])
RGB = torch.rand(2, 6, 5, 3, generator=torch.Generator().manual_seed(0))


# ---------------------------------------------------------------------------- stateless random
@pytest.mark.parametrize("op, args, adjust", [
    ("stateless_random_contrast", (0.2, 1.8), "adjust_contrast"),
    ("stateless_random_saturation", (0.2, 1.8), "adjust_saturation"),
    ("stateless_random_hue", (0.4,), "adjust_hue"),
])
def test_stateless_adjustments_are_seeded_draws_in_range(op, args, adjust):
    fn = getattr(tf.image, op)
    a = fn(RGB, *args, seed=[1, 2])
    torch.testing.assert_close(a, fn(RGB, *args, seed=(1, 2)))  # same seed, same result
    assert a.shape == RGB.shape and a.dtype is RGB.dtype
    outs = [fn(RGB, *args, seed=[s, 0]) for s in range(6)]
    assert len({round(float((o * o).sum()), 4) for o in outs}) > 1  # seeds differ
    # each result is the adjustment by one factor inside the range
    low, high = (args[0], args[1]) if len(args) == 2 else (-args[0], args[0])
    grid = np.linspace(low, high, 801)
    for o in outs[:3]:
        errors = [float((getattr(tf.image, adjust)(RGB, f) - o).abs().max()) for f in grid]
        assert min(errors) < 5e-3


def test_stateless_random_crop():
    x = torch.arange(60).reshape(3, 4, 5)
    a = tf.image.stateless_random_crop(x, [2, 2, 5], seed=[3, 4])
    assert a.shape == (2, 2, 5)
    torch.testing.assert_close(a, tf.image.stateless_random_crop(x, [2, 2, 5], seed=[3, 4]))
    starts = {tuple(tf.image.stateless_random_crop(x, [2, 2, 5], seed=[s, 1])[0, 0, :1].tolist())
              for s in range(30)}
    assert len(starts) > 2
    with pytest.raises(InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.stateless_random_crop(x, [4, 2, 5], seed=[1, 2])


def test_stateless_errors():
    with pytest.raises(ValueError, match="max_delta must be <= 0.5"):
        tf.image.stateless_random_hue(RGB, 0.6, seed=[1, 2])
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.stateless_random_contrast(RGB, 0.6, 0.5, seed=[1, 2])
    with pytest.raises(ValueError, match="Attempt to convert a value \\(None\\)"):
        tf.image.stateless_random_saturation(RGB, 0.5, 1.0)
    with pytest.raises(InvalidArgumentError, match="seed must have shape \\[2\\]"):
        tf.image.stateless_random_contrast(RGB, 0.5, 1.0, seed=[1, 2, 3])


# ---------------------------------------------------------------------------- JPEG
@pytest.mark.parametrize("key, quality, channels", [
    ("adjust_q30", 30, 3), ("adjust_q95", 95, 3), ("adjust_gray_q50", 50, 1)])
def test_adjust_jpeg_quality_close_to_tensorflow(key, quality, channels):
    expected = _dec(JPEG_CASES[key]).astype(np.float64)
    out = tf.image.adjust_jpeg_quality(torch.from_numpy(SMOOTH[:, :, :channels].copy()), quality)
    assert out.dtype is torch.uint8 and tuple(out.shape) == expected.shape
    diff = np.abs(out.numpy().astype(np.float64) - expected)
    assert diff.mean() < 2.0 and diff.max() <= 12  # libjpeg DCT variants differ


def test_adjust_jpeg_quality_float_and_errors():
    expected = _dec(JPEG_CASES["adjust_float_q80"])
    out = tf.image.adjust_jpeg_quality(torch.from_numpy(SMOOTH.astype(np.float32) / 255), 80)
    assert out.dtype is torch.float32
    assert np.abs(out.numpy() - expected).mean() < 1.5 / 255
    with pytest.raises(InvalidArgumentError, match="image must be 3-dimensional"):
        tf.image.adjust_jpeg_quality(np.zeros((2, 8, 8, 3), np.uint8), 50)
    with pytest.raises(InvalidArgumentError, match="quality must be in \\[0,100\\]"):
        tf.image.adjust_jpeg_quality(np.zeros((8, 8, 3), np.uint8), 101)
    with pytest.raises(InvalidArgumentError, match="1 or 3 channels"):
        tf.image.adjust_jpeg_quality(np.zeros((8, 8, 2), np.uint8), 50)


def test_random_jpeg_quality():
    img = torch.from_numpy(SMOOTH.copy())
    a = tf.image.stateless_random_jpeg_quality(img, 20, 90, seed=[1, 2])
    torch.testing.assert_close(a, tf.image.stateless_random_jpeg_quality(img, 20, 90, seed=[1, 2]))
    candidates = [tf.image.adjust_jpeg_quality(img, q) for q in range(20, 90)]
    assert any(torch.equal(a, c) for c in candidates)
    b = tf.image.random_jpeg_quality(img, 40, 41, seed=5)
    torch.testing.assert_close(b, tf.image.adjust_jpeg_quality(img, 40))
    with pytest.raises(ValueError, match="`min_jpeg_quality` must be less than"):
        tf.image.random_jpeg_quality(img, 50, 50)
    with pytest.raises(ValueError, match="jpeg encoding range must be between 0 and 100"):
        tf.image.stateless_random_jpeg_quality(img, -1, 50, seed=[1, 2])


def test_jpeg_header_ops_match_tensorflow():
    shape = tf.image.extract_jpeg_shape(JPEG)
    assert shape.dtype is torch.int32
    assert shape.tolist() == _dec(JPEG_CASES["extract_jpeg_shape"]).tolist()
    shape64 = tf.image.extract_jpeg_shape(JPEG, output_type=tf.int64)
    assert shape64.dtype is torch.int64
    assert bool(tf.image.is_jpeg(JPEG)) is JPEG_CASES["is_jpeg"] is True
    assert bool(tf.image.is_jpeg(tf.io.encode_png(torch.from_numpy(SMOOTH.copy())))) is False
    for key, window, channels in (("decode_and_crop", [3, 5, 8, 10], 0),
                                  ("decode_and_crop_gray", [0, 0, 16, 4], 1)):
        expected = _dec(JPEG_CASES[key])
        out = tf.image.decode_and_crop_jpeg(JPEG, window, channels=channels)
        assert tuple(out.shape) == expected.shape and out.dtype is torch.uint8
        assert np.abs(out.numpy().astype(int) - expected.astype(int)).max() <= 3
    with pytest.raises(InvalidArgumentError, match="Invalid JPEG data"):
        tf.image.extract_jpeg_shape(b"abc")
    with pytest.raises(InvalidArgumentError, match="Invalid JPEG data or crop window"):
        tf.image.decode_and_crop_jpeg(JPEG, [1, 2, 50, 4])


# ---------------------------------------------------------------------------- distorted boxes
def _check_box(begin, size, bbox, height, width, aspect=(0.75, 1.33), area=(0.05, 1.0)):
    assert begin.dtype is torch.int32 and size.dtype is torch.int32
    assert bbox.dtype is torch.float32 and bbox.shape == (1, 1, 4)
    y, x, zero = begin.tolist()
    h, w, minus_one = size.tolist()
    assert zero == 0 and minus_one == -1
    assert 0 <= y and y + h <= height and 0 <= x and x + w <= width
    torch.testing.assert_close(bbox[0, 0], torch.tensor([y / height, x / width, (y + h) / height,
                                                         (x + w) / width]))
    return h, w


def test_sample_distorted_bounding_box_contract():
    boxes = [[[0.1, 0.1, 0.5, 0.5]]]
    for s in range(20):
        begin, size, bbox = tf.image.stateless_sample_distorted_bounding_box(
            [60, 80, 3], boxes, seed=[s, 7], min_object_covered=0.5,
            aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.9])
        h, w = _check_box(begin, size, bbox, 60, 80)
        if (h, w) != (60, 80):  # not the fallback: the constraints hold
            assert 0.1 * 4800 - 1e-6 <= h * w <= 0.9 * 4800
            assert 0.5 - 0.05 <= w / h <= 2.0 + 0.05
    first = tf.image.stateless_sample_distorted_bounding_box([60, 80, 3], boxes, seed=[1, 2])
    again = tf.image.stateless_sample_distorted_bounding_box([60, 80, 3], boxes, seed=[1, 2])
    for a, b in zip(first, again):
        torch.testing.assert_close(a, b)
    _check_box(*tf.image.sample_distorted_bounding_box([10, 20, 3], boxes, seed=3), 10, 20)
    # impossible coverage: the whole image
    begin, size, _ = tf.image.sample_distorted_bounding_box([10, 20, 3], boxes,
                                                            min_object_covered=1.5)
    assert begin.tolist() == [0, 0, 0] and size.tolist() == [10, 20, -1]
    with pytest.raises(InvalidArgumentError, match="No bounding boxes provided as input"):
        tf.image.sample_distorted_bounding_box([10, 20, 3], np.zeros((1, 0, 4), np.float32))
    begin, size, _ = tf.image.sample_distorted_bounding_box(
        [10, 20, 3], np.zeros((1, 0, 4), np.float32), use_image_if_no_bounding_boxes=True)
    assert size.tolist()[2] == -1
