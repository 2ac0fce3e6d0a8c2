"""Keras 2 files written by tf.keras 2.15 (tools/make_tf_fixtures.py): `.h5` models
(`model_config` + `model_weights`), legacy `.h5` and Keras 3-layout `.weights.h5` weight files,
and Keras 2.15's `.keras` archives, for a Sequential CNN (Conv2D, BatchNormalization, Dense)
and a multi-input / multi-output functional model (Embedding, LSTM, GRU with and without
reset_after, Bidirectional, TimeDistributed): the loaded models predict what TF predicted."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchestimator as tf

pytest.importorskip("h5py")
HERE = os.path.join(os.path.dirname(__file__), "fixtures", "keras")
L = tf.keras.layers


def _data(name):
    with np.load(os.path.join(HERE, f"{name}.npz")) as d:
        values = dict(d)
    xs = [values[k] for k in sorted(values) if k.startswith("x")]
    ys = [values[k] for k in sorted(values) if k.startswith("y")]
    return (xs[0] if len(xs) == 1 else xs), ys


def _check(model, name):
    x, expected = _data(name)
    got = model.predict(x, verbose=0)
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def _cnn(dense_name="hidden"):
    return tf.keras.Sequential([
        L.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 2), name="conv"),
        L.BatchNormalization(name="bn"),
        L.MaxPooling2D(2),
        L.Flatten(),
        L.Dense(5, activation="tanh", name=dense_name),
        L.Dense(3, activation="softmax", name="probs"),
    ], name="cnn")


def _rnn():
    tokens = tf.keras.Input((6,), dtype="int32", name="tokens")
    numbers = tf.keras.Input((6, 2), name="numbers")
    embedded = L.Embedding(20, 4, name="embed")(tokens)
    merged = L.Concatenate(name="merge")([embedded, numbers])
    seq = L.LSTM(5, return_sequences=True, name="lstm")(merged)
    seq = L.GRU(4, return_sequences=True, name="gru")(seq)
    seq = L.GRU(3, return_sequences=True, reset_after=False, name="gru_v1")(seq)
    per_step = L.TimeDistributed(L.Dense(2), name="per_step")(seq)
    summary = L.Bidirectional(L.LSTM(3), name="bilstm")(seq)
    score = L.Dense(1, name="score")(summary)
    return tf.keras.Model([tokens, numbers], [score, per_step], name="rnn")


@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_load_model_h5_predicts_as_tf_and_trains_on(name):
    model = tf.keras.models.load_model(os.path.join(HERE, f"{name}.h5"))
    _check(model, name)
    assert type(model.optimizer).__name__ == "Adam"  # compiled from its training_config
    x, y = _data(name)
    history = model.fit(x, y if name == "rnn" else y[0].argmax(-1), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_load_model_of_a_keras_2_15_archive(name):
    model = tf.keras.models.load_model(os.path.join(HERE, f"{name}.keras"))
    _check(model, name)


@pytest.mark.parametrize("suffix", [".h5", "_legacy_weights.h5", ".weights.h5"])
@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_load_weights_of_every_h5_layout(name, suffix):
    model = _cnn() if name == "cnn" else _rnn()
    model.load_weights(os.path.join(HERE, name + suffix))
    _check(model, name)


def test_by_name_and_skip_mismatch(tmp_path):
    path = os.path.join(HERE, "cnn_legacy_weights.h5")
    renamed = _cnn(dense_name="other")  # one layer's name differs
    with pytest.raises(ValueError, match="by_name=True"):
        tf.keras.Sequential([L.Dense(2, input_shape=(3,))]).load_weights(path)
    renamed.load_weights(path, by_name=True)
    reference = tf.keras.models.load_model(os.path.join(HERE, "cnn.h5"))
    np.testing.assert_array_equal(renamed.get_layer("conv").get_weights()[0],
                                  reference.get_layer("conv").get_weights()[0])
    assert not np.array_equal(renamed.get_layer("other").get_weights()[0],
                              reference.get_layer("hidden").get_weights()[0])

    wider = tf.keras.Sequential([
        L.Conv2D(6, 3, activation="relu", input_shape=(8, 8, 2), name="conv"),
        L.BatchNormalization(name="bn"), L.MaxPooling2D(2), L.Flatten(),
        L.Dense(5, activation="tanh", name="hidden"), L.Dense(3, name="probs")])
    with pytest.raises(ValueError, match=r"Shape mismatch in layer 'conv'.*\(3, 3, 2, 6\).*\(3, 3, 2, 4\)"):
        wider.load_weights(path, by_name=True)
    with pytest.warns(UserWarning, match="Skipping loading weights for layer 'conv'"):
        wider.load_weights(path, by_name=True, skip_mismatch=True)
    np.testing.assert_array_equal(wider.get_layer("probs").get_weights()[1],
                                  reference.get_layer("probs").get_weights()[1])


def test_a_weights_file_is_not_a_model_and_our_archives_still_load(tmp_path):
    with pytest.raises(ValueError, match="weights file"):
        tf.keras.models.load_model(os.path.join(HERE, "cnn_legacy_weights.h5"))
    model = tf.keras.models.load_model(os.path.join(HERE, "cnn.h5"))
    model.save(str(tmp_path / "ours.keras"))
    _check(tf.keras.models.load_model(str(tmp_path / "ours.keras")), "cnn")


@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_load_model_of_a_keras_2_savedmodel_directory(name):
    # keras_metadata.pb (the config) + variables/variables.index (TF's checkpoint format)
    model = tf.keras.models.load_model(os.path.join(HERE, f"{name}_savedmodel"))
    _check(model, name)
    assert type(model.optimizer).__name__ == "Adam"


@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_load_weights_of_a_tf_format_checkpoint(name):
    model = _cnn() if name == "cnn" else _rnn()
    model.load_weights(os.path.join(HERE, f"{name}_tf_weights", "ckpt"))
    _check(model, name)


def test_tf_format_weights_into_another_model_is_an_error():
    path = os.path.join(HERE, "cnn_tf_weights", "ckpt")
    wider = tf.keras.Sequential([
        L.Conv2D(6, 3, activation="relu", input_shape=(8, 8, 2), name="conv"),
        L.BatchNormalization(name="bn"), L.MaxPooling2D(2), L.Flatten(),
        L.Dense(5, activation="tanh", name="hidden"), L.Dense(3, name="probs")])
    with pytest.raises(ValueError, match=r"Shape mismatch: weight kernel of layer 'conv'.*\(3, 3, 2, 6\).*\(3, 3, 2, 4\)"):
        wider.load_weights(path)
    other = tf.keras.Sequential([L.Dense(4, input_shape=(3,)), L.Dense(1)])
    with pytest.raises(ValueError, match=r"holds no value for 2 weight\(s\).*layer_with_weights-1/kernel"):
        other.load_weights(path)  # TF's second layer with weights is a BatchNormalization
    # a checkpoint without an object graph (TF1's Saver) cannot be matched to layers
    prefix = os.path.join(os.path.dirname(HERE), "formats", "dtypes", "model.ckpt")
    with pytest.raises(ValueError, match="no object graph"):
        other.load_weights(prefix)
