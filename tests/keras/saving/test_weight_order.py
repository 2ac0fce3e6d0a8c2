"""Weights saved by one model load into the same architecture built again (new layer names) by
order, as Keras does, even where sorting the names would misalign them (dense_10 < dense_2)."""

from __future__ import annotations

import numpy as np

import torchestimator as tf

X = np.random.default_rng(3).normal(size=(4, 3)).astype(np.float32)


def _deep_model() -> tf.keras.Sequential:
    layers = [tf.keras.layers.Dense(3, input_shape=(3,))]
    layers += [tf.keras.layers.Dense(3 + (i % 2)) for i in range(11)]
    return tf.keras.Sequential(layers)


def test_load_weights_by_order_into_a_model_with_other_names(tmp_path):
    first = _deep_model()
    first(X)
    path = str(tmp_path / "w.weights.h5")
    first.save_weights(path)
    second = _deep_model()
    second(X)
    assert [layer.name for layer in first.layers] != [layer.name for layer in second.layers]
    second.load_weights(path)
    np.testing.assert_allclose(second.predict(X, verbose=0), first.predict(X, verbose=0), rtol=1e-6)


def test_backup_and_restore_into_a_model_built_again(tmp_path):
    y = X[:, :1]
    first = _deep_model()
    first.compile("sgd", "mse")
    first.fit(X, y, epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.BackupAndRestore(str(tmp_path), delete_checkpoint=False)])
    again = _deep_model()
    again.compile("sgd", "mse")
    again(X)
    callback = tf.keras.callbacks.BackupAndRestore(str(tmp_path), delete_checkpoint=False)
    callback.set_model(again)
    callback.on_train_begin()
    np.testing.assert_allclose(again.predict(X, verbose=0), first.predict(X, verbose=0), rtol=1e-6)
