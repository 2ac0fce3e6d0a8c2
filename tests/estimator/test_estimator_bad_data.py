"""Data that used to give wrong results or misleading errors: a NaN label, an evaluate whose
eval summaries cannot be written, and an AttributeError raised inside `Dataset.map`."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchestimator as tf
from torchestimator._engine.loop import default_device

X = np.random.default_rng(0).random((8, 2)).astype("float32")
Y3 = np.array([0, 1, 2, 1, 0, 1, 2, 0])


def _dnn(model_dir, n_classes: int = 3):
    return tf.estimator.DNNClassifier([4], [tf.feature_column.numeric_column("x", shape=(2,))],
                                      n_classes=n_classes, model_dir=str(model_dir))


def _input(y=Y3, map_fn=None):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"x": X}, y))
        return (ds.map(map_fn) if map_fn else ds).batch(4)
    return input_fn


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_nan_label_is_reported_as_nan(tmp_path, n_classes):
    y = np.array([0, 1, 1, np.nan, 0, 1, 1, 0], np.float32)
    # on the CPU the check is immediate and names the position; on an accelerator it is deferred
    # (read back every N steps: no host sync per step) and counts what it saw since the last read
    immediate = default_device().type == "cpu"
    pattern = r"Labels contain NaN: 1 of 4 .* position 3" if immediate else r"Labels contain NaN\b"
    with pytest.raises(ValueError, match=pattern) as caught:
        _dnn(tmp_path / "m", n_classes).train(_input(y), steps=1)
    assert "9223372036854775808" not in str(caught.value)


def test_a_nan_label_through_a_keras_loss_is_reported_as_nan():
    y = np.array([0, 1, np.nan], np.float32)
    with pytest.raises(ValueError, match="received a label value of nan"):
        tf.keras.losses.sparse_categorical_crossentropy(y, np.full((3, 3), 1 / 3, np.float32))


def test_evaluate_returns_its_metrics_when_eval_summaries_cannot_be_written(tmp_path):
    """A plain file where `eval/` would be: the directory cannot be made (as root too)."""
    est = _dnn(tmp_path / "m")
    est.train(_input(), steps=2)
    open(os.path.join(est.model_dir, "eval"), "w").close()
    with pytest.warns(UserWarning, match=r"could not write the eval summaries to .*[/\\]m[/\\]eval"):
        results = est.evaluate(_input())
    assert results["global_step"] == 2 and np.isfinite(results["loss"])


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes into a read-only (0o555) directory")
def test_evaluate_on_a_read_only_model_dir(tmp_path):
    est = _dnn(tmp_path / "m")
    est.train(_input(), steps=2)
    os.chmod(est.model_dir, 0o555)
    try:
        with pytest.warns(UserWarning, match="could not write the eval summaries"):
            results = est.evaluate(_input())
        assert results["global_step"] == 2
        assert list(est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(4)))
    finally:
        os.chmod(est.model_dir, 0o755)


def test_an_attribute_error_inside_map_is_raised_as_itself(tmp_path):
    """It used to be swallowed by a `hasattr(dataset, "element_spec")` probe, and the estimator
    said input_fn had not returned a Dataset."""
    def bad(features, label):
        return {"x": features["x"].no_such_method()}, label

    with pytest.raises(AttributeError, match="no_such_method"):
        _dnn(tmp_path / "m").train(_input(map_fn=bad), steps=1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.raises(AttributeError, match="no_such_method"):
        model.fit(tf.data.Dataset.from_tensor_slices((X, X)).map(
            lambda a, b: (a.no_such_method(), b)).batch(4), verbose=0)
