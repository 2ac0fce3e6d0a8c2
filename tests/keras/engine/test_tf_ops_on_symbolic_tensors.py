"""TF's public ops on symbolic Keras tensors (TF's tutorials write `tf.nn.relu(x)`,
`tf.concat([a, b], axis=1)`, `tf.reduce_mean(x, axis=1)` between layers of a functional
model): each records a `TFOpLambda` layer named after the op, as Keras 2.15, which predicts,
trains, and saves and loads through `.keras` files."""

from __future__ import annotations

import types

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._ops import symbolic_dispatch


def _model():
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(0)
    inputs = tf.keras.Input(shape=(4,), name="x")
    h = tf.keras.layers.Dense(6, name="dense")(inputs)
    h = tf.nn.relu(h)
    mean = tf.reduce_mean(h, axis=1, keepdims=True)
    joined = tf.concat([h, mean], axis=-1)
    joined = tf.cast(joined, tf.float32)
    gated = tf.where(joined > 0.1, joined, tf.zeros_like(joined))
    gram = tf.matmul(gated, gated, transpose_b=True)
    scaled = tf.math.l2_normalize(tf.expand_dims(gated, 1), axis=-1)
    out = tf.keras.layers.Dense(1, name="out")(tf.squeeze(scaled, axis=1))
    return tf.keras.Model(inputs, [out, gram]), tf.keras.Model(inputs, out)


def _reference(model, x):
    kernel, bias = model.get_layer("dense").get_weights()
    h = np.maximum(x @ kernel + bias, 0)
    joined = np.concatenate([h, h.mean(axis=1, keepdims=True)], axis=-1)
    gated = np.where(joined > 0.1, joined, 0)
    norm = gated / np.sqrt(np.maximum((gated ** 2).sum(-1, keepdims=True), 1e-12))
    k2, b2 = model.get_layer("out").get_weights()
    return norm @ k2 + b2, gated @ gated.T


def test_ops_record_layers_named_as_keras_and_predict_as_numpy():
    model, _ = _model()
    names = [layer.name for layer in model.layers]
    for expected in ("tf.nn.relu", "tf.math.reduce_mean", "tf.concat", "tf.cast", "tf.where",
                     "tf.linalg.matmul", "tf.math.l2_normalize", "tf.expand_dims", "tf.squeeze"):
        assert expected in names, names
    x = np.random.default_rng(1).normal(size=(5, 4)).astype("float32")
    out, gram = model.predict(x, verbose=0)
    ref_out, ref_gram = _reference(model, x)
    np.testing.assert_allclose(out, ref_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gram, ref_gram, rtol=1e-5, atol=1e-5)


def test_a_model_with_ops_trains_and_round_trips_through_a_keras_file(tmp_path):
    _, model = _model()
    model.compile("adam", loss="mse")
    rng = np.random.default_rng(2)
    x = rng.normal(size=(64, 4)).astype("float32")
    y = x[:, :1] * 2.0
    losses = model.fit(x, y, epochs=5, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)
    config = loaded.get_layer("tf.concat").get_config()
    assert config["function"] == "concat"
    assert config["arguments"]["kwargs"] == {"axis": -1}


def test_two_symbolic_operands_and_constants_anywhere():
    a = tf.keras.Input(shape=(3,))
    b = tf.keras.Input(shape=(3,))
    out = tf.where(a > b, 0.0, b)  # a constant between two symbolic operands
    stacked = tf.stack([a, out, tf.ones_like(a)], axis=1)
    model = tf.keras.Model([a, b], stacked)
    xa = np.array([[1, 2, 3]], "float32")
    xb = np.array([[3, 2, 1]], "float32")
    got = model.predict([xa, xb], verbose=0)
    np.testing.assert_array_equal(got, np.stack([xa, np.where(xa > xb, 0, xb), np.ones_like(xa)], 1))


def test_a_constant_a_config_cannot_hold_is_named():
    x = tf.keras.Input(shape=(3,))
    with pytest.raises(TypeError, match=r"tf.math.reduce_sum: argument 'axis' is a object"):
        tf.reduce_sum(x, axis=object())


def test_eager_calls_are_unchanged_and_aliases_stay_one_object():
    t = torch.tensor([[-1.0, 2.0]])
    assert torch.equal(tf.nn.relu(t), torch.tensor([[0.0, 2.0]]))
    assert tf.add is tf.math.add
    assert tf.matmul is tf.linalg.matmul
    assert tf.nn.relu.__wrapped__(t).tolist() == [[0.0, 2.0]]


@pytest.mark.parametrize("namespace", ["", "math", "nn", "linalg", "image", "strings", "signal",
                                       "bitwise"])
def test_every_public_op_of_a_namespace_takes_symbolic_tensors(namespace):
    """A function added to a namespace after its `wrap_namespace` line would not: this fails
    then (keep that line last in the namespace's __init__.py)."""
    module = getattr(tf, namespace) if namespace else tf
    for name in dir(module):  # load the lazily loaded names too
        if not name.startswith("_"):
            getattr(module, name, None)
    unwrapped = [name for name, value in vars(module).items()
                 if isinstance(value, types.FunctionType) and not name.startswith("_")
                 and name not in symbolic_dispatch._NOT_OPS
                 and not hasattr(value, "__tf_api_name__")]
    assert not unwrapped, f"tf.{namespace}: {unwrapped}"
