"""Regressions from TF's "Save and load models" and "Word embeddings" tutorials (run with
`import torchestimator as tf`): the `checkpoint` index `save_weights` writes, `model.save(dir)`
in TF 2.15's default SavedModel format, and a plain function in a layer's config."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import torchestimator as tf


def _model() -> tf.keras.Model:
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    return model


def test_save_weights_is_named_by_latest_checkpoint(tmp_path):
    """`tf.train.latest_checkpoint(dir)` names the weights `ModelCheckpoint(save_weights_only=True)`
    wrote (TF 2.15 records them in the folder's `checkpoint` index)."""
    x = np.random.rand(16, 3).astype("float32")
    model = _model()
    path = str(tmp_path / "training_2" / "cp-{epoch:04d}.ckpt")
    model.fit(x, np.random.rand(16, 2), epochs=2, batch_size=8, verbose=0, callbacks=[
        tf.keras.callbacks.ModelCheckpoint(filepath=path, save_weights_only=True)])
    folder = str(tmp_path / "training_2")
    assert "checkpoint" in os.listdir(folder)
    latest = tf.train.latest_checkpoint(folder)
    assert latest == os.path.join(folder, "cp-0002.ckpt")
    fresh = _model()
    fresh.load_weights(latest)
    np.testing.assert_allclose(fresh.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-6)


def test_save_weights_with_h5_or_keras_suffix_writes_no_index(tmp_path):
    model = _model()
    model.save_weights(str(tmp_path / "w.h5"))
    assert "checkpoint" not in os.listdir(tmp_path)
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_model_save_to_a_path_without_suffix_is_a_savedmodel_directory(tmp_path):
    """`model.save('saved_model/my_model')`: a directory that `load_model` reads back (weights and
    optimizer) and `tf.saved_model.load` opens."""
    x = np.random.rand(8, 3).astype("float32")
    model = _model()
    model.fit(x, np.random.rand(8, 2), verbose=0)
    path = str(tmp_path / "saved_model" / "my_model")
    model.save(path)
    assert os.path.isdir(path) and "model.keras" in os.listdir(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-6)
    assert int(loaded.optimizer.iterations) == int(model.optimizer.iterations) == 1
    served = tf.saved_model.load(path).signatures["serving_default"](tf.constant(x))
    np.testing.assert_allclose(next(iter(served.values())), model.predict(x, verbose=0), atol=1e-5)
    model.save(path)  # saving again replaces it
    with pytest.raises(FileExistsError, match="overwrite"):
        model.save(path, overwrite=False)


def word_embeddings_standardization(input_data):  # a name no other test registers
    return tf.strings.lower(input_data)


def test_a_plain_function_in_a_config_is_saved_by_name(tmp_path):
    """TextVectorization(standardize=custom_standardization): `to_json` (TensorBoard writes it)
    and `model.save` keep the function's name, as Keras 2.15; `load_model` finds it in
    `custom_objects` and otherwise names it."""
    layer = tf.keras.layers.TextVectorization(standardize=word_embeddings_standardization, max_tokens=10,
                                              output_sequence_length=4)
    layer.adapt(np.array(["A b c", "b C d"], dtype=object))
    model = tf.keras.Sequential([layer, tf.keras.layers.Embedding(10, 2)])
    x = np.array(["A B", "d"], dtype=object)
    expected = model(x).numpy()
    layers = json.loads(model.to_json())["config"]["layers"]
    config = next(entry["config"] for entry in layers if entry["class_name"] == "TextVectorization")
    assert config["standardize"] == {"module": "builtins", "class_name": "function",
                                     "config": "word_embeddings_standardization",
                                     "registered_name": "function"}
    path = str(tmp_path / "m.keras")
    model.save(path)
    with pytest.raises(ValueError, match="word_embeddings_standardization"):
        tf.keras.models.load_model(path)
    loaded = tf.keras.models.load_model(
        path, custom_objects={"word_embeddings_standardization": word_embeddings_standardization})
    np.testing.assert_allclose(loaded(x).numpy(), expected)


def test_a_lambda_is_still_refused():
    with pytest.raises(ValueError, match="Cannot serialize"):
        tf.keras.layers.TextVectorization(standardize=lambda s: s).get_config()
