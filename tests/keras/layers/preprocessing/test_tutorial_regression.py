"""Regressions found running TF's "Basic regression: Predict fuel efficiency" tutorial."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf


def _mixed_frame_array() -> np.ndarray:
    # what np.array(DataFrame) gives for int, float and bool columns (pandas >= 2 dummies)
    return np.array([[8, 317.9, True], [4, 120.0, False], [6, 200.5, True]], dtype=object)


def test_object_array_of_numbers_is_refused_as_tf_does():
    norm = tf.keras.layers.Normalization(axis=-1)
    with pytest.raises(ValueError, match=r"Unsupported object type int"):
        norm.adapt(_mixed_frame_array())
    norm.adapt(np.ones((3, 3)))
    # was: AttributeError 'numpy.ndarray' object has no attribute 'to'
    with pytest.raises(ValueError, match=r"Unsupported object type int"):
        norm(_mixed_frame_array()[:1])


def test_object_array_of_strings_still_passes_to_string_layers():
    lookup = tf.keras.layers.StringLookup(vocabulary=["a", "b"])
    out = lookup(np.array([["a"], ["b"]], dtype=object))
    assert out.numpy().ravel().tolist() == [1, 2]


def test_sequential_starting_with_adapted_normalization_builds_at_once(tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.random((40, 9)), rng.random(40)
    norm = tf.keras.layers.Normalization(axis=-1)
    norm.adapt(x)
    model = tf.keras.Sequential([norm, tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
    # TF 2.15: built before any call (summary shows every layer's shape and weights)
    assert model.built
    assert model.output_shape == (None, 1)
    assert model.count_params() == 19 + 9 * 64 + 64 + 65
    model.compile(loss="mae", optimizer="adam")
    model.fit(x, y, epochs=1, verbose=0)
    path = str(tmp_path / "dnn_model.keras")
    model.save(path)
    reloaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(reloaded.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_normalization_on_unknown_kept_axis_gives_the_statistics_size():
    norm = tf.keras.layers.Normalization(axis=-1)
    norm.adapt(np.random.default_rng(0).random((10, 3, 4)))
    assert norm.compute_output_shape((None, None, None)) == (None, None, 4)
    model = tf.keras.Sequential([norm, tf.keras.layers.Dense(1)])
    assert model.output_shape == (None, None, 1)
