"""Regressions found running TF's "Time series forecasting" tutorial."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf


def test_eager_set_shape_checks_compatibility_and_get_shape():
    t = tf.zeros((3, 6, 19))
    assert t.set_shape([None, 6, None]) is None
    t.set_shape(tf.TensorShape([3, None, 19]))
    assert tuple(t.get_shape()) == (3, 6, 19)
    with pytest.raises(ValueError, match="not compatible"):
        t.set_shape([None, 5, None])
    with pytest.raises(ValueError, match="not compatible"):
        t.set_shape([None, 6])


def test_set_shape_inside_dataset_map_gives_the_window_spec():
    def split(features):
        inputs, labels = features[:, :6, :], features[:, 6:, :1]
        inputs.set_shape([None, 6, None])
        labels.set_shape([None, 1, None])
        return inputs, labels

    ds = tf.keras.utils.timeseries_dataset_from_array(
        np.zeros((50, 4), "float32"), None, sequence_length=7, batch_size=8).map(split)
    spec = ds.element_spec
    assert (tuple(spec[0].shape), tuple(spec[1].shape)) == ((None, 6, 4), (None, 1, 1))


def test_sequential_with_inferred_input_relaxes_to_a_new_window_length():
    linear = tf.keras.Sequential([tf.keras.layers.Dense(units=1)])
    assert tuple(linear(np.zeros((32, 1, 19), "float32")).shape) == (32, 1, 1)
    # was: ValueError expected shape=(None, 1, 19), found shape=(32, 24, 19)
    assert tuple(linear(np.zeros((32, 24, 19), "float32")).shape) == (32, 24, 1)
    assert linear.input_shape == (None, None, 19)
    assert tuple(linear(np.zeros((2, 1, 19), "float32")).shape) == (2, 1, 1)


def test_sequential_that_cannot_take_the_relaxed_shape_keeps_its_graph():
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
    model(np.zeros((4, 3, 19), "float32"))
    with pytest.raises(ValueError):
        model(np.zeros((4, 24, 19), "float32"))
    assert model.input_shape == (None, 3, 19)
    assert tuple(model(np.zeros((2, 3, 19), "float32")).shape) == (2, 1)


def test_sequential_with_an_explicit_input_does_not_relax():
    model = tf.keras.Sequential([tf.keras.Input(shape=(1, 19)), tf.keras.layers.Dense(1)])
    with pytest.raises(ValueError):
        model(np.zeros((32, 24, 19), "float32"))
