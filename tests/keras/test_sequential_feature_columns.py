"""TF's structured-data tutorial model: `Sequential([DenseFeatures(columns), Dense, ...])` called
on a dict of features, then fitted, evaluated and called again (it once failed on the
second call, having built a one-input graph from the dict)."""

from __future__ import annotations

import numpy as np

import torchestimator as tf


def test_sequential_over_dense_features_is_called_fitted_and_called_again():
    fc = tf.feature_column
    columns = [fc.numeric_column("x"),
               fc.indicator_column(fc.categorical_column_with_vocabulary_list("kind", ["a", "b"]))]
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.DenseFeatures(columns), tf.keras.layers.Dense(4, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    features = {"x": np.linspace(-1, 1, 8).astype("float32"), "kind": np.array(["a", "b"] * 4, dtype=object)}
    first = model(features).detach().numpy()
    np.testing.assert_array_equal(model(features).detach().numpy(), first)
    assert len(model.trainable_weights) == 4  # both Dense layers' kernels and biases
    model.compile(optimizer="adam", loss="mse")
    data = tf.data.Dataset.from_tensor_slices((features, np.ones(8, "float32"))).batch(4)
    history = model.fit(data, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.predict(data, verbose=0).shape == (8, 1)
    assert not np.array_equal(model(features).detach().numpy(), first)
