"""The Estimator guide's program (`model_to_estimator` from a frozen MobileNetV2 base): a
Sequential of the base, GlobalAveragePooling2D and Dense, compiled, turned into an
Estimator, trained and evaluated on an image input_fn that casts, rescales and resizes with
tf.cast / tf.image.resize, as the guide's code."""

from __future__ import annotations

import numpy as np
import pytest
from _app_fixtures import H5_TOP

import torchestimator as tf

IMG_SIZE = 96


def _images(n: int = 48) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(0)
    images = rng.uniform(0, 60, (n, 64, 64, 3)).astype("uint8")
    labels = (np.arange(n) % 2).astype("int64")
    images[labels == 1, 12:52, 12:52, :] += 180  # the planted signal: a bright square
    return images, labels


def preprocess(image, label):  # the guide's, verbatim
    image = tf.cast(image, tf.float32)
    image = (image / 127.5) - 1
    image = tf.image.resize(image, (IMG_SIZE, IMG_SIZE))
    return image, label


def train_input_fn(batch_size):
    images, labels = _images()
    data = tf.data.Dataset.from_tensor_slices((images, labels))
    return data.map(preprocess).shuffle(500).batch(batch_size)


@pytest.mark.slow  # about 20 s on an idle 2-core machine (30 MobileNetV2 steps)
def test_the_guides_mobilenet_v2_program_trains_and_evaluates(tmp_path):
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(0)
    keras_mobilenet_v2 = tf.keras.applications.MobileNetV2(
        input_shape=(IMG_SIZE, IMG_SIZE, 3), alpha=0.35, include_top=False, weights=None)
    keras_mobilenet_v2.load_weights(H5_TOP, by_name=True, skip_mismatch=True)  # TF-written weights
    keras_mobilenet_v2.trainable = False
    estimator_model = tf.keras.Sequential([
        keras_mobilenet_v2,
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(1),
    ])
    estimator_model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
                            loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                            metrics=["accuracy"])
    est_mobilenet_v2 = tf.keras.estimator.model_to_estimator(keras_model=estimator_model,
                                                             model_dir=str(tmp_path))
    est_mobilenet_v2.train(input_fn=lambda: train_input_fn(16).repeat(), steps=30)
    result = est_mobilenet_v2.evaluate(input_fn=lambda: train_input_fn(16), steps=3)
    assert result["global_step"] == 30 and result["accuracy"] >= 0.9
    # the frozen base did not move: its weights in the checkpoint are the loaded ones
    base_kernel = next(n for n in est_mobilenet_v2.get_variable_names() if n.endswith("Conv1/kernel"))
    np.testing.assert_array_equal(est_mobilenet_v2.get_variable_value(base_kernel),
                                  keras_mobilenet_v2.get_layer("Conv1").get_weights()[0])
