"""tf.io.read_file / write_file and the Pillow-backed image codecs (decode_bmp, decode_gif,
decode_image with expand_animations, encode_png / encode_jpeg round trips)."""

import io

import numpy as np
import pytest
import torch

import torchestimator as tf

Image = pytest.importorskip("PIL.Image")


def _pixels(h=4, w=5, c=3):
    return (np.arange(h * w * c) * 7 % 256).astype("uint8").reshape(h, w, c)


def _encode(array, fmt, **kwargs):
    buf = io.BytesIO()
    Image.fromarray(array if array.shape[-1] != 1 else array[..., 0]).save(buf, fmt, **kwargs)
    return buf.getvalue()


def _gif(frames):
    images = [Image.fromarray(f) for f in frames]
    buf = io.BytesIO()
    images[0].save(buf, "GIF", save_all=True, append_images=images[1:])
    return buf.getvalue()


def test_read_and_write_file_round_trip(tmp_path):
    path = str(tmp_path / "blob.bin")
    tf.io.write_file(path, b"\x00\x01abc")
    assert tf.io.read_file(path) == b"\x00\x01abc"
    tf.io.write_file(path, "héllo")
    assert tf.io.read_file(np.array(path.encode(), dtype=object)) == "héllo".encode()
    with pytest.raises(tf.errors.NotFoundError):
        tf.io.read_file(str(tmp_path / "missing"))


def test_png_round_trip_through_files(tmp_path):
    img = torch.from_numpy(_pixels(6, 7, 4))
    path = str(tmp_path / "x.png")
    tf.io.write_file(path, tf.io.encode_png(img))
    back = tf.io.decode_png(tf.io.read_file(path))
    assert back.dtype == torch.uint8 and torch.equal(back, img)
    assert torch.equal(tf.io.decode_image(tf.io.read_file(path)), img)
    as_float = tf.image.decode_image(tf.io.read_file(path), dtype=tf.float32)
    assert as_float.dtype == torch.float32
    assert torch.allclose(as_float, img.float() / 255)


def test_jpeg_round_trip_is_close():
    img = torch.full((8, 8, 3), 120, dtype=torch.uint8)
    back = tf.io.decode_jpeg(tf.io.encode_jpeg(img, quality=95))
    assert back.shape == (8, 8, 3)
    assert (back.int() - 120).abs().max() <= 2
    assert tf.io.decode_image(tf.io.encode_jpeg(img), channels=1).shape == (8, 8, 1)


def test_decode_bmp_channels():
    array = _pixels()
    data = _encode(array, "BMP")
    assert torch.equal(tf.io.decode_bmp(data), torch.from_numpy(array))
    assert tf.io.decode_bmp(data, channels=4).shape == (4, 5, 4)
    assert tf.image.decode_bmp(data, channels=1).shape == (4, 5, 1)
    assert torch.equal(tf.io.decode_image(data), torch.from_numpy(array))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a BMP"):
        tf.io.decode_bmp(_encode(array, "PNG"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="channels"):
        tf.io.decode_bmp(data, channels=2)


def test_decode_gif_frames_and_expand_animations():
    a = np.zeros((4, 5, 3), "uint8")
    b = np.full((4, 5, 3), 255, "uint8")
    data = _gif([a, b])
    frames = tf.io.decode_gif(data)
    assert frames.shape == (2, 4, 5, 3) and frames.dtype == torch.uint8
    assert int(frames[0].max()) == 0 and int(frames[1].min()) == 255
    assert tf.io.decode_image(data).shape == (2, 4, 5, 3)
    first = tf.io.decode_image(data, expand_animations=False)
    assert first.shape == (4, 5, 3) and torch.equal(first, frames[0])
    # A single-frame GIF is still 4-D, as TF's decoders give it.
    assert tf.image.decode_gif(_gif([a])).shape == (1, 4, 5, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 or 3 for GIF"):
        tf.io.decode_image(data, channels=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="GIF"):
        tf.io.decode_gif(_encode(a, "PNG"))


def test_decode_image_rejects_unknown_formats():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
        tf.io.decode_image(b"hello world")
    with pytest.raises(tf.errors.InvalidArgumentError, match="channels must be 0, 1, 3 or 4"):
        tf.io.decode_image(_encode(_pixels(), "PNG"), channels=2)
    with pytest.raises(TypeError, match="not a str"):
        tf.io.decode_image("some/path.png")
