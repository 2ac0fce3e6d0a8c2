"""A flat column `(batch,)` fed to an `Input(shape=(1,))` (DataFrame columns, TF's
structured-data tutorial), and `Normalization(axis=None)` adapted on such a column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import torchestimator as tf


def test_normalization_axis_none_adapted_on_a_column_called_on_input():
    column = np.arange(10, dtype="float32")
    norm = tf.keras.layers.Normalization(axis=None)
    norm.adapt(column)
    inputs = tf.keras.Input(shape=(1,))
    encoded = norm(inputs)
    assert encoded.shape == (None, 1)
    out = np.asarray(norm(column.reshape(-1, 1)))
    np.testing.assert_allclose(out[:, 0], (column - column.mean()) / column.std(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(norm(column)), out[:, 0], rtol=1e-6)


def test_normalization_kept_axis_size_still_checked():
    norm = tf.keras.layers.Normalization()
    norm.adapt(np.ones((4, 3), dtype="float32"))
    with pytest.raises(ValueError, match="expected axis 1 of input shape to have value 3"):
        norm(np.ones((2, 4), dtype="float32"))


def test_flat_column_fits_and_predicts_an_input_of_shape_none_1():
    frame = pd.DataFrame({"a": np.linspace(-1, 1, 10), "label": np.arange(10) % 2})
    inputs = tf.keras.Input(shape=(1,), name="a")
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse")
    history = model.fit(frame["a"], frame["label"], epochs=2, batch_size=4, verbose=0)
    assert len(history.history["loss"]) == 2
    flat = model.predict(frame["a"].to_numpy(), verbose=0)
    column = model.predict(frame["a"].to_numpy().reshape(-1, 1), verbose=0)
    assert flat.shape == (10, 1)
    np.testing.assert_allclose(flat, column)
    assert np.isfinite(model.evaluate({"a": frame["a"]}, frame["label"], verbose=0))


def test_trailing_unit_axis_is_squeezed_for_a_rank_1_input():
    inputs = tf.keras.Input(shape=())
    model = tf.keras.Model(inputs, tf.keras.layers.Lambda(lambda t: t * 2)(inputs))
    out = model(torch.ones(3, 1))
    assert tuple(out.shape) == (3,)
    with pytest.raises(ValueError, match=r"expected shape=\(None, 1\), found shape=\(3, 2\)"):
        column = tf.keras.Input((1,))
        tf.keras.Model(column, tf.keras.layers.Lambda(lambda t: t * 2)(column))(torch.ones(3, 2))
