"""tf.keras.utils.load_img / img_to_array / array_to_img / save_img and smart_resize, with
Keras 2.15's defaults and messages."""

import io

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.utils._image_utils import smart_resize

Image = pytest.importorskip("PIL.Image")

utils = tf.keras.utils


def _rgb(h=6, w=8):
    return (np.arange(h * w * 3) % 256).astype("uint8").reshape(h, w, 3)


def test_array_to_img_and_back_channels_last():
    array = _rgb().astype("float32")
    img = utils.array_to_img(array, scale=False)
    assert img.mode == "RGB" and img.size == (8, 6)
    back = utils.img_to_array(img)
    assert back.dtype == np.float32 and back.shape == (6, 8, 3)
    np.testing.assert_array_equal(back, array)


def test_array_to_img_scales_and_modes():
    x = np.linspace(-1, 1, 4 * 4).reshape(4, 4, 1)
    img = utils.array_to_img(x)  # scale=True maps min..max to 0..255
    assert img.mode == "L"
    values = np.asarray(img)
    assert values.min() == 0 and values.max() == 255
    assert utils.array_to_img(np.zeros((2, 2, 4))).mode == "RGBA"
    assert utils.array_to_img(np.full((2, 2, 1), 1000.0), scale=False).mode == "I"
    assert utils.array_to_img(torch.zeros(3, 2, 2), data_format="channels_first").size == (2, 2)
    with pytest.raises(ValueError, match="Expected image array to have rank 3"):
        utils.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Invalid data_format"):
        utils.array_to_img(np.zeros((2, 2, 3)), data_format="nchw")
    with pytest.raises(ValueError, match="Unsupported channel number: 2"):
        utils.array_to_img(np.zeros((2, 2, 2)))


def test_img_to_array_layouts():
    gray = Image.fromarray(np.zeros((3, 5), "uint8"))
    assert utils.img_to_array(gray).shape == (3, 5, 1)
    assert utils.img_to_array(gray, data_format="channels_first").shape == (1, 3, 5)
    rgb = Image.fromarray(_rgb())
    assert utils.img_to_array(rgb, data_format="channels_first", dtype="uint8").shape == (3, 6, 8)
    with pytest.raises(ValueError, match="Unknown data_format"):
        utils.img_to_array(rgb, data_format="bad")


def test_save_img_and_load_img_round_trip(tmp_path):
    array = _rgb()
    path = tmp_path / "img.png"
    utils.save_img(str(path), array, scale=False)
    img = utils.load_img(path)  # pathlib.Path is accepted
    assert img.mode == "RGB" and img.size == (8, 6)
    np.testing.assert_array_equal(utils.img_to_array(img, dtype="uint8"), array)
    gray = utils.load_img(str(path), color_mode="grayscale")
    assert gray.mode == "L"
    assert utils.load_img(str(path), color_mode="rgba").mode == "RGBA"
    with pytest.warns(UserWarning, match="grayscale is deprecated"):
        assert utils.load_img(str(path), grayscale=True).mode == "L"
    with pytest.raises(ValueError, match='color_mode must be "grayscale", "rgb", or "rgba"'):
        utils.load_img(str(path), color_mode="cmyk")
    with pytest.raises(TypeError, match="path should be path-like or io.BytesIO"):
        utils.load_img(3)


def test_save_img_to_file_object_and_jpeg_rgba_warning(tmp_path):
    buf = io.BytesIO()
    utils.save_img(buf, _rgb(), file_format="png")
    buf.seek(0)
    assert utils.load_img(buf).size == (8, 6)
    with pytest.warns(UserWarning, match="JPG format does not support RGBA"):
        utils.save_img(str(tmp_path / "x.jpg"), np.zeros((2, 2, 4)), file_format="jpeg")


def test_load_img_target_size_and_keep_aspect_ratio(tmp_path):
    path = str(tmp_path / "wide.png")
    array = np.zeros((10, 20, 3), "uint8")
    array[:, 5:15] = 255  # the centered square crop is all white
    Image.fromarray(array).save(path)
    assert utils.load_img(path, target_size=(4, 6)).size == (6, 4)
    cropped = utils.load_img(path, target_size=(5, 5), keep_aspect_ratio=True)
    assert cropped.size == (5, 5)
    assert np.asarray(cropped).min() == 255
    with pytest.raises(ValueError, match="Invalid interpolation method area"):
        utils.load_img(path, target_size=(4, 6), interpolation="area")


def test_smart_resize_crops_center_then_resizes():
    x = np.zeros((10, 20, 3), "float32")
    x[:, 5:15] = 1.0
    out = smart_resize(x, (4, 4))
    assert isinstance(out, np.ndarray) and out.shape == (4, 4, 3)
    np.testing.assert_allclose(out, 1.0)
    batch = smart_resize(torch.ones(2, 9, 6, 1), (3, 3), interpolation="nearest")
    assert isinstance(batch, torch.Tensor) and batch.shape == (2, 3, 3, 1)
    with pytest.raises(ValueError, match="Expected `size` to be a tuple of 2 integers"):
        smart_resize(x, (4,))
    with pytest.raises(ValueError, match="incorrect rank"):
        smart_resize(np.zeros((4, 4)), (2, 2))


def test_preprocessing_image_namespace_holds_the_same_functions():
    """`tf.keras.preprocessing.image` is Keras 2.15's home of these, and of `smart_resize`."""
    image = tf.keras.preprocessing.image
    for name in ("load_img", "img_to_array", "array_to_img", "save_img"):
        assert getattr(image, name) is getattr(tf.keras.utils, name)
    assert image.smart_resize(np.zeros((4, 6, 3), np.float32), (2, 2)).shape == (2, 2, 3)
