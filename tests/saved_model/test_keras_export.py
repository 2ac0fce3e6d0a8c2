"""Keras models export too: `model.export(path)` / `tf.saved_model.save(model, path)` give a
directory with a `serving_default` signature equal to `model.predict`."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchestimator as tf

X = np.random.default_rng(0).normal(size=(10, 4)).astype("float32")


def _sequential():
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                 tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(3, activation="softmax")])
    return model


def test_sequential_export_matches_predict(tmp_path):
    model = _sequential()
    path = str(tmp_path / "seq")
    model.export(path)
    loaded = tf.saved_model.load(path)
    signature = loaded.signatures["serving_default"]
    assert signature.method_name == "tensorflow/serving/predict"
    (input_name,) = signature.inputs
    assert signature.inputs[input_name].shape == (None, 4)
    out = signature(**{input_name: X})
    (output_name,) = out
    np.testing.assert_allclose(out[output_name].numpy(), model.predict(X, verbose=0), rtol=0, atol=1e-6)
    assert output_name == model.output_names[0]


def test_functional_multi_input_multi_output_with_saved_model_save(tmp_path):
    a = tf.keras.Input(shape=(4,), name="a")
    b = tf.keras.Input(shape=(2,), name="b")
    h = tf.keras.layers.Concatenate()([a, b])
    out1 = tf.keras.layers.Dense(1, name="score")(h)
    out2 = tf.keras.layers.Dense(2, activation="softmax", name="kind")(h)
    model = tf.keras.Model([a, b], [out1, out2])
    xb = X[:, :2] * 3
    tf.saved_model.save(model, str(tmp_path / "fn"))
    loaded = tf.saved_model.load(str(tmp_path / "fn"))
    out = loaded.signatures["serving_default"](a=X, b=xb)
    expected = model.predict([X, xb], verbose=0)
    np.testing.assert_allclose(out["score"].numpy(), expected[0], atol=1e-6)
    np.testing.assert_allclose(out["kind"].numpy(), expected[1], atol=1e-6)


def test_feature_column_keras_model_needs_and_uses_an_input_signature(tmp_path):
    fc = tf.feature_column
    columns = [fc.numeric_column("x"),
               fc.indicator_column(fc.categorical_column_with_vocabulary_list("kind", ["a", "b"]))]
    model = tf.keras.Sequential([tf.keras.layers.DenseFeatures(columns), tf.keras.layers.Dense(1)])
    features = {"x": X[:, 0], "kind": np.array(["a", "b", "c", "a", "b", "a", "a", "b", "c", "a"], dtype=object)}
    expected = model(features).detach().numpy()
    with pytest.raises(ValueError, match="input_signature"):
        model.export(str(tmp_path / "none"))
    signature = {"x": tf.TensorSpec([None], tf.float32), "kind": tf.TensorSpec([None], tf.string)}
    model.export(str(tmp_path / "fc"), input_signature=signature)
    out = tf.saved_model.load(str(tmp_path / "fc")).signatures["serving_default"](**features)
    np.testing.assert_allclose(next(iter(out.values())).numpy(), expected, atol=1e-6)


def test_export_replaces_an_earlier_export_and_refuses_a_foreign_directory(tmp_path):
    model = _sequential()
    path = tmp_path / "m"
    model.export(str(path))
    model.layers[0].kernel.data.mul_(2.0)
    model.export(str(path))  # replaced whole: the second model's outputs
    (name,) = tf.saved_model.load(str(path)).signatures["serving_default"].inputs
    out = tf.saved_model.load(str(path)).signatures["serving_default"](**{name: X})
    np.testing.assert_allclose(next(iter(out.values())).numpy(), model.predict(X, verbose=0), atol=1e-6)
    assert not [p for p in os.listdir(tmp_path) if p != "m"]  # no temporary directories left
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="non-empty directory that holds no export"):
        model.export(str(foreign))
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_an_unbuilt_subclassed_model_is_refused_naming_each_entry_points_argument(tmp_path):
    class Subclassed(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(ValueError, match=r"no known inputs.*pass signatures=tf.TensorSpec"):
        tf.saved_model.save(Subclassed(), str(tmp_path / "a"))
    with pytest.raises(ValueError, match=r"no known inputs.*pass input_signature=tf.TensorSpec"):
        Subclassed().export(str(tmp_path / "b"))
    model = Subclassed()
    tf.saved_model.save(model, str(tmp_path / "c"), signatures=tf.TensorSpec((None, 3), tf.float32))
    assert tf.saved_model.load(str(tmp_path / "c")) is not None
