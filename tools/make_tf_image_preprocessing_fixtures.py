"""Writes the Keras 2.15 image preprocessing fixtures of tests/keras/layers/image_preprocessing.

    ~/anchor-venvs/tf215/bin/python tools/make_tf_image_preprocessing_fixtures.py

Writes tests/keras/layers/image_preprocessing/fixtures/tf_image_preprocessing.npz, holding
(every key names what made it):

  transform/<name>/<fill_mode>/<interpolation>   `tf.raw_ops.ImageProjectiveTransformV3` of
                                    the image `transform/image` (and `transform/narrow`, one
                                    pixel wide) under the transform `transform/<name>/matrix`
  matrix/<kind>                     Keras' `get_rotation_matrix` / `get_translation_matrix` /
                                    `get_zoom_matrix` for the parameters in `matrix/<kind>/args`
  resizing/<interp>/<crop>/<h>x<w>  `tf.keras.layers.Resizing` of `resize/image` (float) and,
                                    under `resizing_u8/...`, of `resize/image_u8`
  center_crop/<h>x<w>               `tf.keras.layers.CenterCrop` of `crop/image` (and `_u8`)
  random_crop/inference/<h>x<w>     `tf.keras.layers.RandomCrop(...)(x, training=False)`
  layer/<name>                      a random layer whose range is one value (lower == upper),
                                    so TF draws that value: a deterministic output of `layer/x`
  flip/<mode>                       tf.image.flip_left_right / flip_up_down of `layer/x`

Tests never import TensorFlow; they read this file.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf
from keras.src.layers.preprocessing import image_preprocessing as ip

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "keras", "layers", "image_preprocessing", "fixtures")

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("nearest", "bilinear")
RESIZE_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                  "mitchellcubic")


def _transforms() -> dict[str, np.ndarray]:
    h, w = 5.0, 7.0
    rot = ip.get_rotation_matrix(tf.constant([0.6], tf.float32), h, w).numpy()[0]
    big_rot = ip.get_rotation_matrix(tf.constant([2.5], tf.float32), h, w).numpy()[0]
    return {
        "identity": np.array([1, 0, 0, 0, 1, 0, 0, 0], np.float32),
        "shift": np.array([1, 0, 2.5, 0, 1, -1.75, 0, 0], np.float32),
        "far_shift": np.array([1, 0, -13.25, 0, 1, 11.6, 0, 0], np.float32),
        "half_shift": np.array([1, 0, 0.5, 0, 1, -0.5, 0, 0], np.float32),
        "rotation": rot.astype(np.float32),
        "big_rotation": big_rot.astype(np.float32),
        "zoom_out": np.array([1.7, 0, -2.1, 0, 1.4, -0.8, 0, 0], np.float32),
        "zoom_in": np.array([0.6, 0, 1.2, 0, 0.45, 1.1, 0, 0], np.float32),
        "shear": np.array([1, 0.8, -1.0, 0.3, 1, 0.2, 0, 0], np.float32),
        "projective": np.array([1.1, 0.2, -0.5, -0.1, 0.9, 0.3, 0.05, -0.08], np.float32),
        "singular": np.array([1, 0, 0, 0, 1, 0, -0.5, 0], np.float32),  # k = 0 at x = 2
    }


def transform_fixtures(out: dict) -> None:
    rng = np.random.RandomState(0)
    image = rng.uniform(0, 10, size=(2, 5, 7, 2)).astype(np.float32)
    narrow = rng.uniform(0, 10, size=(1, 4, 1, 1)).astype(np.float32)
    out["transform/image"] = image
    out["transform/narrow"] = narrow
    for name, matrix in _transforms().items():
        out[f"transform/{name}/matrix"] = matrix
        for fill_mode in FILL_MODES:
            for interpolation in INTERPOLATIONS:
                for key, img in (("", image), ("narrow/", narrow)):
                    result = tf.raw_ops.ImageProjectiveTransformV3(
                        images=img, transforms=matrix[None, :],
                        output_shape=tf.constant(img.shape[1:3], tf.int32),
                        fill_value=tf.constant(0.5, tf.float32),
                        fill_mode=fill_mode.upper(), interpolation=interpolation.upper(),
                    )
                    out[f"transform/{key}{name}/{fill_mode}/{interpolation}"] = result.numpy()
    # Per-image transforms of a batch and a different output size.
    mats = np.stack([_transforms()["shift"], _transforms()["rotation"]])
    out["transform/batch/matrix"] = mats
    out["transform/batch/reflect/bilinear"] = tf.raw_ops.ImageProjectiveTransformV3(
        images=image, transforms=mats, output_shape=tf.constant([4, 9], tf.int32),
        fill_value=tf.constant(0.0), fill_mode="REFLECT", interpolation="BILINEAR").numpy()


def matrix_fixtures(out: dict) -> None:
    angles = np.array([0.3, -1.2, 3.0], np.float32)
    out["matrix/rotation/args"] = angles
    out["matrix/rotation"] = ip.get_rotation_matrix(tf.constant(angles), 6.0, 9.0).numpy()
    shifts = np.array([[1.5, -2.0], [-0.25, 3.5]], np.float32)
    out["matrix/translation/args"] = shifts
    out["matrix/translation"] = ip.get_translation_matrix(tf.constant(shifts)).numpy()
    zooms = np.array([[0.8, 1.3], [1.5, 0.6]], np.float32)
    out["matrix/zoom/args"] = zooms
    out["matrix/zoom"] = ip.get_zoom_matrix(tf.constant(zooms), 6.0, 9.0).numpy()


def resize_fixtures(out: dict) -> None:
    rng = np.random.RandomState(1)
    image = rng.uniform(0, 255, size=(2, 6, 9, 3)).astype(np.float32)
    image_u8 = rng.randint(0, 256, size=(6, 9, 3)).astype(np.uint8)
    out["resize/image"] = image
    out["resize/image_u8"] = image_u8
    for method in RESIZE_METHODS:
        for crop in (False, True):
            for size in ((4, 5), (8, 7)):
                layer = tf.keras.layers.Resizing(*size, interpolation=method,
                                                 crop_to_aspect_ratio=crop)
                key = f"{method}/{int(crop)}/{size[0]}x{size[1]}"
                out[f"resizing/{key}"] = layer(image).numpy()
                result = layer(image_u8)
                assert result.dtype == tf.float32
                out[f"resizing_u8/{key}"] = result.numpy()


def crop_fixtures(out: dict) -> None:
    rng = np.random.RandomState(2)
    image = rng.uniform(0, 255, size=(2, 7, 10, 2)).astype(np.float32)
    image_u8 = rng.randint(0, 256, size=(7, 10, 2)).astype(np.uint8)
    out["crop/image"] = image
    out["crop/image_u8"] = image_u8
    for size in ((4, 5), (3, 10), (7, 10), (9, 12), (5, 14)):
        key = f"{size[0]}x{size[1]}"
        out[f"center_crop/{key}"] = tf.keras.layers.CenterCrop(*size)(image).numpy()
        out[f"center_crop_u8/{key}"] = tf.keras.layers.CenterCrop(*size)(image_u8).numpy()
        out[f"random_crop/inference/{key}"] = tf.keras.layers.RandomCrop(*size, seed=3)(
            image, training=False).numpy()


def layer_fixtures(out: dict) -> None:
    rng = np.random.RandomState(3)
    x = rng.uniform(0, 255, size=(2, 6, 8, 3)).astype(np.float32)
    out["layer/x"] = x
    out["flip/horizontal"] = tf.image.flip_left_right(x).numpy()
    out["flip/vertical"] = tf.image.flip_up_down(x).numpy()
    layers = {
        "rotation": tf.keras.layers.RandomRotation((0.05, 0.05)),
        "rotation_neg_constant_nearest": tf.keras.layers.RandomRotation(
            (-0.1, -0.1), fill_mode="constant", interpolation="nearest", fill_value=7.0),
        "rotation_wrap": tf.keras.layers.RandomRotation((0.3, 0.3), fill_mode="wrap"),
        "translation": tf.keras.layers.RandomTranslation((0.2, 0.2), (-0.1, -0.1)),
        "translation_nearest": tf.keras.layers.RandomTranslation(
            (-0.35, -0.35), (0.4, 0.4), fill_mode="nearest"),
        "zoom": tf.keras.layers.RandomZoom((0.3, 0.3), (-0.2, -0.2)),
        "zoom_same": tf.keras.layers.RandomZoom((-0.25, -0.25), fill_mode="constant"),
        "brightness": tf.keras.layers.RandomBrightness((0.1, 0.1)),
        "brightness_unit": tf.keras.layers.RandomBrightness((-0.3, -0.3), value_range=(0, 1)),
        "height": tf.keras.layers.RandomHeight((0.5, 0.5)),
        "height_nearest": tf.keras.layers.RandomHeight((-0.4, -0.4), interpolation="nearest"),
        "width": tf.keras.layers.RandomWidth((0.3, 0.3), interpolation="bicubic"),
        "width_area": tf.keras.layers.RandomWidth((-0.45, -0.45), interpolation="area"),
        "crop_full": tf.keras.layers.RandomCrop(6, 8),
    }
    for name, layer in layers.items():
        out[f"layer/{name}"] = layer(x, training=True).numpy()
    unit = (x / 255.0).astype(np.float32)
    out["layer/x_unit"] = unit
    out["layer/brightness_unit_input"] = tf.keras.layers.RandomBrightness(
        (-0.3, -0.3), value_range=(0, 1))(unit, training=True).numpy()


def main() -> None:
    out: dict[str, np.ndarray] = {}
    transform_fixtures(out)
    matrix_fixtures(out)
    resize_fixtures(out)
    crop_fixtures(out)
    layer_fixtures(out)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "tf_image_preprocessing.npz")
    tmp = path + ".tmp.npz"
    np.savez_compressed(tmp, **out)
    os.replace(tmp, path)
    print(f"wrote {len(out)} arrays to {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
