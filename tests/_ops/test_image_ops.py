"""tf.image: resize (TF's kernels), dtype conversion, crops, flips, color ops, patches, codecs.

Values are checked against numpy computations of TF's documented definitions, and a sample
against TensorFlow 2.15's own outputs (fixtures/image.json, written by make_image_fixture.py).
"""

import json
import math
import os
import sys

import numpy as np
import pytest
import torch

import torchestimator as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "image.json")
with open(FIXTURE) as _f:
    _CASES = [c for c in json.load(_f)["cases"] if c["namespace"] == "image"]


def _arg(a):
    if isinstance(a, dict) and "array" in a:
        return np.array(a["array"], dtype=a["dtype"])
    if isinstance(a, dict) and "dtype_name" in a:
        return tf.as_dtype(a["dtype_name"])
    return a


def _case_id(case):
    return f"{case['op']}-{json.dumps(case['kwargs'], sort_keys=True)}-{len(str(case['args']))}"


# ---------------------------------------------------------------------------- TF 2.15 fixture
@pytest.mark.parametrize("case", _CASES, ids=[_case_id(c) for c in _CASES])
def test_matches_tensorflow(case):
    out = getattr(tf.image, case["op"])(*[_arg(a) for a in case["args"]], **case["kwargs"])
    assert tf.as_dtype(case["expected_dtype"]) is out.dtype
    expected = np.array(case["expected"], dtype=out.numpy().dtype)
    assert out.shape == expected.shape
    if out.dtype.is_floating_point:
        np.testing.assert_allclose(out.numpy(), expected, rtol=2e-6, atol=2e-6)
    else:
        np.testing.assert_array_equal(out.numpy(), expected)


def test_fixture_covers_the_resize_methods():
    methods = {c["kwargs"].get("method", "bilinear") for c in _CASES if c["op"] == "resize"}
    assert methods == {"bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
                       "gaussian", "mitchellcubic"}
    assert len(_CASES) >= 30


# ---------------------------------------------------------------------------- resize
def _np_bilinear(img, out_h, out_w):
    """TF's ResizeBilinear with half-pixel centers, in numpy (NHWC)."""
    n, h, w, c = img.shape

    def axis(in_size, out_size):
        src = (np.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
        lo = np.floor(src)
        frac = src - lo
        lo_i = np.clip(lo, 0, in_size - 1).astype(int)
        hi_i = np.clip(lo + 1, 0, in_size - 1).astype(int)
        return lo_i, hi_i, frac

    y0, y1, fy = axis(h, out_h)
    x0, x1, fx = axis(w, out_w)
    top = img[:, y0][:, :, x0] * (1 - fx)[None, None, :, None] + \
        img[:, y0][:, :, x1] * fx[None, None, :, None]
    bottom = img[:, y1][:, :, x0] * (1 - fx)[None, None, :, None] + \
        img[:, y1][:, :, x1] * fx[None, None, :, None]
    return top * (1 - fy)[None, :, None, None] + bottom * fy[None, :, None, None]


def test_resize_bilinear_is_tf_half_pixel_bilinear():
    rng = np.random.default_rng(0)
    img = rng.random((2, 5, 6, 3)).astype(np.float32)
    for size in ([9, 4], [3, 11], [5, 6]):
        out = tf.image.resize(img, size)
        assert out.shape == (2, *size, 3) and out.dtype == torch.float32
        np.testing.assert_allclose(out.numpy(), _np_bilinear(img.astype(np.float64), *size),
                                   atol=1e-5)
    single = tf.image.resize(img[0], [9, 4])  # HWC in, HWC out
    assert single.shape == (9, 4, 3)
    np.testing.assert_allclose(single.numpy(), tf.image.resize(img, [9, 4])[0].numpy())


def test_resize_nearest_keeps_dtype_and_picks_half_pixel_centers():
    img = np.arange(2 * 4 * 6 * 1, dtype=np.uint8).reshape(2, 4, 6, 1)
    out = tf.image.resize(img, [3, 9], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    assert out.dtype == torch.uint8
    rows = np.minimum(np.floor((np.arange(3) + 0.5) * 4 / 3), 3).astype(int)
    cols = np.minimum(np.floor((np.arange(9) + 0.5) * 6 / 9), 5).astype(int)
    np.testing.assert_array_equal(out.numpy(), img[:, rows][:, :, cols])
    ints = tf.image.resize(torch.arange(12, dtype=torch.int64).reshape(3, 4, 1), [6, 8], "nearest")
    assert ints.dtype == torch.int64
    np.testing.assert_array_equal(ints.numpy()[::2, ::2, 0], np.arange(12).reshape(3, 4))


def test_resize_area_averages_covered_pixels():
    rng = np.random.default_rng(1)
    img = rng.random((1, 6, 8, 2)).astype(np.float32)
    out = tf.image.resize(img, [3, 4], method="area")  # integer factors: block means
    blocks = img.reshape(1, 3, 2, 4, 2, 2).mean(axis=(2, 4))
    np.testing.assert_allclose(out.numpy(), blocks, atol=1e-6)
    # 3 -> 2 pixels: out[0] = (in[0] + in[1] / 2) / 1.5, out[1] = (in[1] / 2 + in[2]) / 1.5
    row = np.array([[[[1.0], [4.0], [7.0]]]], np.float32)
    np.testing.assert_allclose(tf.image.resize(row, [1, 2], "area").numpy().ravel(),
                               [(1 + 2) / 1.5, (2 + 7) / 1.5], atol=1e-6)


@pytest.mark.parametrize("method", ["bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                                    "mitchellcubic", "bilinear"])
@pytest.mark.parametrize("antialias", [False, True])
def test_resize_preserves_constant_images(method, antialias):
    img = torch.full((1, 7, 5, 2), 0.25)
    for size in ([3, 2], [11, 13]):
        out = tf.image.resize(img, size, method=method, antialias=antialias)
        torch.testing.assert_close(out, torch.full((1, *size, 2), 0.25), atol=1e-6, rtol=0)


def test_resize_antialias_low_pass_filters_when_downsampling():
    stripes = torch.zeros(1, 1, 40, 1)
    stripes[0, 0, ::2, 0] = 1.0  # alternating columns: the finest detail there is
    aliased = tf.image.resize(stripes, [1, 7], method="bilinear")
    filtered = tf.image.resize(stripes, [1, 7], method="bilinear", antialias=True)
    assert filtered.std() < 0.1 * max(aliased.std().item(), 1e-3) + 0.05
    torch.testing.assert_close(filtered.mean(), torch.tensor(0.5), atol=0.05, rtol=0)


def test_resize_converts_to_float32_and_is_differentiable():
    img = torch.arange(16, dtype=torch.uint8).reshape(4, 4, 1)
    assert tf.image.resize(img, [2, 2]).dtype == torch.float32
    assert tf.image.resize(img.double(), [2, 2], "bicubic").dtype == torch.float32
    x = torch.rand(1, 4, 4, 1, requires_grad=True)
    for method in ("bilinear", "bicubic", "area", "lanczos3"):
        tf.image.resize(x, [3, 7], method=method).sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad).all()


def test_resize_preserve_aspect_ratio():
    img = torch.zeros(10, 20, 1)
    assert tf.image.resize(img, [7, 7], preserve_aspect_ratio=True).shape == (4, 7, 1)
    assert tf.image.resize(torch.zeros(3, 5, 1), [10, 10], preserve_aspect_ratio=True).shape == \
        (6, 10, 1)


def test_resize_errors():
    img = torch.zeros(2, 3, 4, 1)
    with pytest.raises(ValueError, match="Resize method is not implemented: foo"):
        tf.image.resize(img, [2, 2], method="foo")
    with pytest.raises(ValueError, match="2 elements"):
        tf.image.resize(img, [1, 2, 3])
    with pytest.raises(ValueError, match="int32"):
        tf.image.resize(img, [1.5, 2])
    with pytest.raises(ValueError, match=r"shape \(3, 4\)"):
        tf.image.resize(torch.zeros(3, 4), [2, 2])
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize(torch.zeros(1, 2, 3, 4, 1), [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be positive"):
        tf.image.resize(img, [0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-zero size"):
        tf.image.resize(torch.zeros(1, 0, 3, 1), [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.image.resize(torch.zeros(2, 2, 1, dtype=torch.bool), [3, 3], "nearest")
    assert tf.image.resize(torch.zeros(0, 2, 3, 1), [4, 4]).shape == (0, 4, 4, 1)


def test_resize_with_pad_centers_and_pads_with_zeros():
    out = tf.image.resize_with_pad(torch.ones(4, 8, 1), 6, 6)
    expected = np.zeros((6, 6))
    expected[1:4] = 1.0
    np.testing.assert_allclose(out[..., 0].numpy(), expected, atol=1e-6)
    assert tf.image.resize_with_pad(torch.ones(4, 8, 1, dtype=torch.uint8), 6, 6,
                                    method="nearest").dtype == torch.uint8


def test_resize_method_constants():
    m = tf.image.ResizeMethod
    assert (m.BILINEAR, m.NEAREST_NEIGHBOR, m.BICUBIC, m.AREA) == \
        ("bilinear", "nearest", "bicubic", "area")
    assert (m.LANCZOS3, m.LANCZOS5, m.GAUSSIAN, m.MITCHELLCUBIC) == \
        ("lanczos3", "lanczos5", "gaussian", "mitchellcubic")


# ---------------------------------------------------------------------------- convert_image_dtype
def test_convert_image_dtype_int_to_float_and_back():
    u8 = torch.tensor([0, 1, 128, 255], dtype=torch.uint8)
    as_float = tf.image.convert_image_dtype(u8, tf.float32)
    np.testing.assert_allclose(as_float.numpy(), np.array([0, 1, 128, 255]) / 255.0, rtol=1e-6)
    floats = torch.tensor([0.0, 0.25, 0.5, 1.0, 1.2, -0.1])
    wrapped = tf.image.convert_image_dtype(floats, tf.uint8)
    expected = np.trunc(floats.numpy().astype(np.float64) * 255.5).astype(np.int64) % 256
    np.testing.assert_array_equal(wrapped.numpy(), expected)  # out of range wraps, as TF
    clamped = tf.image.convert_image_dtype(floats, tf.uint8, saturate=True)
    np.testing.assert_array_equal(clamped.numpy(), [0, 63, 127, 255, 255, 0])
    i16 = tf.image.convert_image_dtype(torch.tensor([0.0, 0.5, 1.0, -1.0]), tf.int16)
    np.testing.assert_array_equal(i16.numpy(), [0, 16383, 32767, -32767])
    assert tf.image.convert_image_dtype(torch.tensor([0.5]), tf.float64).dtype == torch.float64


def test_convert_image_dtype_int_to_int_shifts_ranges():
    i32 = torch.tensor([0, 2**24, 2**31 - 1, -5], dtype=torch.int32)
    np.testing.assert_array_equal(tf.image.convert_image_dtype(i32, tf.uint8).numpy(),
                                  [0, 2, 255, 255])  # floordiv by 2**23, then wraps
    u8 = torch.tensor([0, 1, 255], dtype=torch.uint8)
    np.testing.assert_array_equal(tf.image.convert_image_dtype(u8, tf.int32).numpy(),
                                  [0, 2**23, 255 * 2**23])
    np.testing.assert_array_equal(tf.image.convert_image_dtype(u8, tf.int8).numpy(), [0, 0, 127])
    i8 = torch.tensor([-1, 1, 127], dtype=torch.int8)
    np.testing.assert_array_equal(tf.image.convert_image_dtype(i8, tf.uint8).numpy(),
                                  [254, 2, 254])
    same = torch.tensor([3], dtype=torch.int16)
    assert tf.image.convert_image_dtype(same, tf.int16) is same


def test_convert_image_dtype_errors():
    with pytest.raises(AttributeError, match="image dtype must be"):
        tf.image.convert_image_dtype(torch.tensor([True]), tf.float32)
    with pytest.raises(AttributeError, match="dtype must be either"):
        tf.image.convert_image_dtype(torch.tensor([1.0]), tf.bool)


# ---------------------------------------------------------------------------- flips, rotations
def test_flips_rot90_transpose_match_numpy():
    img = np.arange(2 * 3 * 4 * 2).reshape(2, 3, 4, 2).astype(np.int32)
    np.testing.assert_array_equal(tf.image.flip_left_right(img).numpy(), img[:, :, ::-1])
    np.testing.assert_array_equal(tf.image.flip_up_down(img).numpy(), img[:, ::-1])
    np.testing.assert_array_equal(tf.image.flip_left_right(img[0]).numpy(), img[0][:, ::-1])
    np.testing.assert_array_equal(tf.image.transpose(img).numpy(), img.transpose(0, 2, 1, 3))
    for k in (-1, 0, 1, 2, 3, 5):
        np.testing.assert_array_equal(tf.image.rot90(img[0], k).numpy(),
                                      np.rot90(img[0], k, axes=(0, 1)))
        np.testing.assert_array_equal(tf.image.rot90(img, k=k).numpy(),
                                      np.rot90(img, k, axes=(1, 2)))
    with pytest.raises(ValueError, match="at least three-dimensional"):
        tf.image.flip_left_right(torch.zeros(2, 2))
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.flip_up_down(torch.zeros(1, 1, 2, 2, 1))


def test_random_flips_are_seeded_and_per_image():
    batch = torch.arange(64 * 1 * 2 * 1, dtype=torch.float32).reshape(64, 1, 2, 1)
    tf.random.set_seed(5)
    first = tf.image.random_flip_left_right(batch, seed=3)
    tf.random.set_seed(5)
    again = tf.image.random_flip_left_right(batch, seed=3)
    torch.testing.assert_close(first, again)
    flipped = (first != batch).any(dim=(1, 2, 3))
    assert torch.equal(first[flipped], torch.flip(batch[flipped], (2,)))
    assert torch.equal(first[~flipped], batch[~flipped])
    assert 10 < int(flipped.sum()) < 54  # each image flips independently, about half
    single = torch.arange(6.0).reshape(2, 3, 1)
    outs = {tuple(tf.image.random_flip_up_down(single).reshape(-1).tolist()) for _ in range(40)}
    assert outs == {tuple(single.reshape(-1).tolist()),
                    tuple(torch.flip(single, (0,)).reshape(-1).tolist())}
    s1 = tf.image.stateless_random_flip_left_right(batch, seed=[1, 2])
    torch.testing.assert_close(s1, tf.image.stateless_random_flip_left_right(batch, seed=[1, 2]))


# ---------------------------------------------------------------------------- crops and pads
def test_central_crop_matches_tf_offsets():
    img = np.arange(5 * 7).reshape(5, 7, 1)
    out = tf.image.central_crop(img, 0.5)
    top, left = int((5 - 5 * 0.5) / 2), int((7 - 7 * 0.5) / 2)
    np.testing.assert_array_equal(out.numpy(), img[top:5 - top, left:7 - left])
    assert tf.image.central_crop(torch.zeros(2, 10, 9, 3), 0.33).shape == (2, 4, 3, 3)
    full = torch.zeros(4, 4, 1)
    assert tf.image.central_crop(full, 1.0) is full
    for bad in (0.0, 1.5, -0.2):
        with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
            tf.image.central_crop(full, bad)
    with pytest.raises(ValueError, match="at least three-dimensional"):
        tf.image.central_crop(torch.zeros(4, 4), 0.5)


def test_crop_and_pad_to_bounding_box():
    img = np.arange(2 * 4 * 5 * 1).reshape(2, 4, 5, 1)
    np.testing.assert_array_equal(tf.image.crop_to_bounding_box(img, 1, 2, 2, 3).numpy(),
                                  img[:, 1:3, 2:5])
    padded = tf.image.pad_to_bounding_box(torch.ones(2, 2, 1), 1, 0, 4, 3)
    expected = np.zeros((4, 3, 1))
    expected[1:3, 0:2] = 1
    np.testing.assert_array_equal(padded.numpy(), expected)
    with pytest.raises(ValueError, match="height must be >= target \\+ offset"):
        tf.image.crop_to_bounding_box(img, 1, 0, 4, 2)
    with pytest.raises(ValueError, match="offset_height must be >= 0"):
        tf.image.crop_to_bounding_box(img, -1, 0, 2, 2)
    with pytest.raises(ValueError, match="target_width must be > 0"):
        tf.image.crop_to_bounding_box(img, 0, 0, 2, 0)
    with pytest.raises(ValueError, match="width must be <= target - offset"):
        tf.image.pad_to_bounding_box(torch.ones(2, 2, 1), 0, 2, 3, 3)


def test_resize_with_crop_or_pad_centers():
    img = np.arange(1, 16).reshape(3, 5, 1)
    out = tf.image.resize_with_crop_or_pad(img, 4, 2)[..., 0].numpy()
    np.testing.assert_array_equal(out, [[2, 3], [7, 8], [12, 13], [0, 0]])
    out = tf.image.resize_with_crop_or_pad(img, 6, 4)[..., 0].numpy()
    np.testing.assert_array_equal(out[0], [0, 0, 0, 0])
    np.testing.assert_array_equal(out[1:4], img[:, :4, 0])
    with pytest.raises(ValueError, match="target_height must be > 0"):
        tf.image.resize_with_crop_or_pad(img, 0, 4)


def test_random_crop_takes_a_window():
    value = torch.arange(6 * 7 * 3).reshape(6, 7, 3)
    out = tf.image.random_crop(value, [4, 5, 3], seed=1)
    assert out.shape == (4, 5, 3)
    start = out[0, 0, 0].item()
    r, c = divmod(start // 3, 7)
    assert torch.equal(out, value[r:r + 4, c:c + 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[6, 7, 3\] and \[7, 2, 3\]"):
        tf.image.random_crop(value, [7, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="one entry per dimension"):
        tf.image.random_crop(value, [2, 2])


# ---------------------------------------------------------------------------- value and color
def test_per_image_standardization_uses_adjusted_stddev():
    rng = np.random.default_rng(2)
    img = rng.integers(0, 256, (2, 4, 5, 3)).astype(np.uint8)
    out = tf.image.per_image_standardization(img)
    assert out.dtype == torch.float32 and out.shape == img.shape
    x = img.astype(np.float64)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = np.maximum(x.std(axis=(1, 2, 3), keepdims=True), 1 / math.sqrt(60))
    np.testing.assert_allclose(out.numpy(), (x - mean) / std, atol=1e-5)
    flat = tf.image.per_image_standardization(torch.ones(2, 2, 3))
    np.testing.assert_array_equal(flat.numpy(), np.zeros((2, 2, 3)))  # stddev floored, no NaN
    with pytest.raises(ValueError, match="at least three-dimensional"):
        tf.image.per_image_standardization(torch.ones(2, 2))


def test_adjust_brightness_and_contrast():
    img = torch.tensor([[[0.5, 0.95]]])
    np.testing.assert_allclose(tf.image.adjust_brightness(img, 0.1).numpy(), [[[0.6, 1.05]]],
                               rtol=1e-6)
    u8 = torch.tensor([[[10, 250]]], dtype=torch.uint8)
    bright = tf.image.adjust_brightness(u8, 0.1)
    assert bright.dtype == torch.uint8
    np.testing.assert_array_equal(bright.numpy(), [[[35, 255]]])  # saturated, not wrapped
    rng = np.random.default_rng(3)
    x = rng.random((2, 3, 4, 2)).astype(np.float32)
    mean = x.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(tf.image.adjust_contrast(x, 1.7).numpy(),
                               (x - mean) * 1.7 + mean, atol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[1, 2\]"):
        tf.image.adjust_contrast(torch.ones(1, 2), 2.0)


def test_random_value_ops_stay_in_range():
    img = torch.full((4, 4, 3), 0.5)
    tf.random.set_seed(0)
    for _ in range(20):
        out = tf.image.random_brightness(img, 0.2)
        delta = (out - img).unique()
        assert delta.numel() == 1 and -0.2 <= delta.item() <= 0.2
    with pytest.raises(ValueError, match="max_delta must be non-negative"):
        tf.image.random_brightness(img, -0.1)
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.random_contrast(img, 0.5, 0.2)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5"):
        tf.image.random_hue(img, 0.6)
    assert tf.image.random_saturation(img, 0.5, 1.5).shape == img.shape


def test_grayscale_conversions():
    rgb = torch.tensor([[[0.1, 0.5, 0.9], [1.0, 0.0, 0.0]]])
    gray = tf.image.rgb_to_grayscale(rgb)
    np.testing.assert_allclose(gray.numpy()[..., 0],
                               rgb.numpy() @ np.array([0.2989, 0.5870, 0.1140]), rtol=1e-6)
    assert gray.shape == (1, 2, 1)
    u8 = tf.image.rgb_to_grayscale(torch.tensor([[[10, 200, 30]]], dtype=torch.uint8))
    assert u8.dtype == torch.uint8 and u8.item() == 124
    back = tf.image.grayscale_to_rgb(gray)
    assert back.shape == (1, 2, 3) and torch.equal(back[..., 0], back[..., 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[1, 1, 2\]"):
        tf.image.rgb_to_grayscale(torch.zeros(1, 1, 2))
    with pytest.raises(ValueError, match="should be size 1"):
        tf.image.grayscale_to_rgb(torch.zeros(1, 1, 2))


def test_hsv_round_trip_and_colorsys():
    import colorsys

    rng = np.random.default_rng(4)
    rgb = rng.random((5, 6, 3)).astype(np.float32)
    hsv = tf.image.rgb_to_hsv(rgb)
    expected = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)]).reshape(rgb.shape)
    np.testing.assert_allclose(hsv.numpy(), expected, atol=1e-6)
    np.testing.assert_allclose(tf.image.hsv_to_rgb(hsv).numpy(), rgb, atol=1e-6)
    shifted = tf.image.adjust_hue(rgb, 0.25).numpy().reshape(-1, 3)
    want = [colorsys.hsv_to_rgb((h + 0.25) % 1.0, s, v) for h, s, v in expected.reshape(-1, 3)]
    np.testing.assert_allclose(shifted, np.array(want), atol=1e-5)
    desat = tf.image.adjust_saturation(rgb, 0.0).numpy()  # saturation 0: gray = max channel
    np.testing.assert_allclose(desat, np.repeat(rgb.max(-1, keepdims=True), 3, -1), atol=1e-6)
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        tf.image.adjust_hue(rgb, 1.5)


def test_adjust_gamma():
    img = torch.tensor([[[0.25, 0.5]]])
    np.testing.assert_allclose(tf.image.adjust_gamma(img, 2, 2).numpy(), [[[0.125, 0.5]]])
    with pytest.raises(ValueError, match="non-negative"):
        tf.image.adjust_gamma(img, -1)


# ---------------------------------------------------------------------------- patches
def _np_patches(img, k, s, r, padding):
    n, h, w, c = img.shape
    eff = [(k[i] - 1) * r[i] + 1 for i in range(2)]
    if padding == "SAME":
        out = [-(-h // s[0]), -(-w // s[1])]
        pad = [max((out[0] - 1) * s[0] + eff[0] - h, 0), max((out[1] - 1) * s[1] + eff[1] - w, 0)]
        img = np.pad(img, ((0, 0), (pad[0] // 2, pad[0] - pad[0] // 2),
                           (pad[1] // 2, pad[1] - pad[1] // 2), (0, 0)))
    else:
        out = [(h - eff[0]) // s[0] + 1, (w - eff[1]) // s[1] + 1]
    result = np.zeros((n, out[0], out[1], k[0] * k[1] * c), img.dtype)
    for i in range(out[0]):
        for j in range(out[1]):
            patch = img[:, i * s[0]:i * s[0] + eff[0]:r[0], j * s[1]:j * s[1] + eff[1]:r[1]]
            result[:, i, j] = patch.reshape(n, -1)
    return result


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_patches_matches_numpy(padding):
    img = np.arange(2 * 7 * 6 * 3).reshape(2, 7, 6, 3).astype(np.int32)
    for k, s, r in (([2, 3], [2, 2], [1, 1]), ([3, 2], [1, 3], [2, 1])):
        out = tf.image.extract_patches(img, [1, *k, 1], [1, *s, 1], [1, *r, 1], padding)
        assert out.dtype == torch.int32
        np.testing.assert_array_equal(out.numpy(), _np_patches(img, k, s, r, padding))


# ---------------------------------------------------------------------------- codecs
def test_png_round_trip_and_jpeg_decode():
    pytest.importorskip("PIL")
    img = (torch.rand(5, 7, 3) * 255).to(torch.uint8)
    data = tf.image.encode_png(img)
    assert isinstance(data, bytes) and data[:4] == b"\x89PNG"
    assert torch.equal(tf.image.decode_png(data), img)
    assert tf.image.decode_png(data, channels=1).shape == (5, 7, 1)
    assert tf.image.decode_image(data, dtype=tf.float32).dtype == torch.float32
    jpeg = tf.image.decode_jpeg(tf.image.encode_jpeg(torch.full((8, 8, 3), 100, dtype=torch.uint8)))
    assert jpeg.shape == (8, 8, 3) and (jpeg.int() - 100).abs().max() <= 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot decode"):
        tf.image.decode_png(b"not an image")
    with pytest.raises(tf.errors.InvalidArgumentError, match="uint8"):
        tf.image.encode_png(torch.zeros(2, 2, 3))


def test_codecs_name_pillow_when_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        tf.image.decode_png(b"\x89PNG")
    with pytest.raises(ImportError, match="pip install pillow"):
        tf.image.encode_jpeg(torch.zeros(2, 2, 3, dtype=torch.uint8))
