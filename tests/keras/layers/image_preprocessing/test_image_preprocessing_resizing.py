"""`Resizing`, `CenterCrop` and `RandomCrop` at inference against TensorFlow 2.15 (Keras
2.15) outputs recorded by `tools/make_tf_image_preprocessing_fixtures.py`."""

import os

import numpy as np
import pytest
import torch

import torchestimator as tf

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "tf_image_preprocessing.npz"))
METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic")
SIZES = ((4, 5), (8, 7))
CROP_SIZES = ((4, 5), (3, 10), (7, 10), (9, 12), (5, 14))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("crop", [False, True])
def test_resizing_matches_keras(method, crop):
    for size in SIZES:
        key = f"{method}/{int(crop)}/{size[0]}x{size[1]}"
        layer = tf.keras.layers.Resizing(*size, interpolation=method, crop_to_aspect_ratio=crop)
        out = layer(torch.tensor(FIXTURES["resize/image"]))
        assert out.dtype == torch.float32 and tuple(out.shape) == (2, *size, 3)
        np.testing.assert_allclose(out.numpy(), FIXTURES[f"resizing/{key}"], rtol=1e-5, atol=2e-3)
        # A uint8 image, unbatched: float output.
        out8 = layer(FIXTURES["resize/image_u8"])
        assert out8.dtype == torch.float32 and tuple(out8.shape) == (*size, 3)
        np.testing.assert_allclose(np.asarray(out8), FIXTURES[f"resizing_u8/{key}"], rtol=1e-5,
                                   atol=2e-3)


def test_resizing_interpolation_is_case_insensitive_and_config_round_trips():
    layer = tf.keras.layers.Resizing(3, 4, interpolation="NEAREST", crop_to_aspect_ratio=True,
                                     name="rs")
    config = layer.get_config()
    assert {k: config[k] for k in ("height", "width", "interpolation", "crop_to_aspect_ratio")} == {
        "height": 3, "width": 4, "interpolation": "NEAREST", "crop_to_aspect_ratio": True}
    again = tf.keras.layers.Resizing.from_config(config)
    x = torch.rand(2, 6, 9, 1)
    np.testing.assert_array_equal(again(x).numpy(), layer(x).numpy())
    assert layer.compute_output_shape((None, 6, 9, 1)) == (None, 3, 4, 1)
    assert layer.compute_output_shape((6, 9, 1)) == (3, 4, 1)


@pytest.mark.parametrize("size", CROP_SIZES)
def test_center_crop_matches_keras(size):
    key = f"{size[0]}x{size[1]}"
    out = tf.keras.layers.CenterCrop(*size)(torch.tensor(FIXTURES["crop/image"]))
    assert out.dtype == torch.float32 and tuple(out.shape) == (2, *size, 2)
    np.testing.assert_allclose(out.numpy(), FIXTURES[f"center_crop/{key}"], rtol=1e-5, atol=2e-3)
    out8 = tf.keras.layers.CenterCrop(*size)(FIXTURES["crop/image_u8"])
    assert out8.dtype == torch.float32
    np.testing.assert_allclose(np.asarray(out8), FIXTURES[f"center_crop_u8/{key}"], rtol=1e-5,
                               atol=2e-3)


@pytest.mark.parametrize("size", CROP_SIZES)
def test_random_crop_at_inference_is_keras_center_crop_or_resize(size):
    key = f"{size[0]}x{size[1]}"
    layer = tf.keras.layers.RandomCrop(*size, seed=3)
    out = layer(torch.tensor(FIXTURES["crop/image"]), training=False)
    np.testing.assert_allclose(out.numpy(), FIXTURES[f"random_crop/inference/{key}"], rtol=1e-5,
                               atol=2e-3)


def test_random_crop_in_training_crops_one_window_for_the_batch():
    x = torch.arange(2 * 7 * 10, dtype=torch.float32).reshape(2, 7, 10, 1)
    layer = tf.keras.layers.RandomCrop(3, 4, seed=5)
    starts = set()
    for _ in range(40):
        out = layer(x, training=True)
        assert tuple(out.shape) == (2, 3, 4, 1)
        top, left = divmod(int(out[0, 0, 0, 0]), 10)
        np.testing.assert_array_equal(out.numpy(), x[:, top:top + 3, left:left + 4].numpy())
        starts.add((top, left))
    assert len(starts) > 10 and all(0 <= t <= 4 and 0 <= w <= 6 for t, w in starts)
    # A smaller image resizes, even in training (Keras' rule).
    small = tf.keras.layers.RandomCrop(9, 12)(torch.tensor(FIXTURES["crop/image"]), training=True)
    np.testing.assert_allclose(small.numpy(), FIXTURES["random_crop/inference/9x12"], atol=2e-3)


def test_errors_name_the_argument():
    with pytest.raises(NotImplementedError, match="Value not recognized for `interpolation`: cubic"):
        tf.keras.layers.Resizing(3, 3, interpolation="cubic")
    with pytest.raises(ValueError, match=r"Resizing: `height` must be a positive integer. Received: height=0"):
        tf.keras.layers.Resizing(0, 3)
    with pytest.raises(ValueError, match="CenterCrop: `width` must be a positive integer"):
        tf.keras.layers.CenterCrop(3, 2.5)
    with pytest.raises(ValueError, match="Expected the input image to be rank 3 or 4. Got inputs.shape = \\(4, 5\\)"):
        tf.keras.layers.Resizing(2, 2)(torch.zeros(4, 5))
    with pytest.raises(ValueError, match="Expected the input image to be rank 3 or 4"):
        tf.keras.layers.CenterCrop(2, 2)(torch.zeros(1, 1, 4, 5, 1))
