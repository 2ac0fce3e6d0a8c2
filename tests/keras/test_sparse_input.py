"""`tf.keras.Input(shape=(n,), sparse=True)`: a tf.SparseTensor reaches Dense (sparse
matmul), Lambda gets the SparseTensor, other layers the dense tensor; call / predict / fit
match TF 2.15 (tests/fixtures/tf_sparse_flow.json, tools/make_tf_sparse_flow_fixtures.py)."""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

FX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                                 "tf_sparse_flow.json")))["keras"]


def st():
    return tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 3]],
                           [1.0, 2.0, 3.0, 4.0, 5.0], [3, 4])


def dense_model():
    inp = tf.keras.Input(shape=(4,), sparse=True)
    dense = tf.keras.layers.Dense(2)
    model = tf.keras.Model(inp, dense(inp))
    dense.set_weights([np.array(FX["kernel"], np.float32), np.array(FX["bias"], np.float32)])
    return model, dense


def test_sparse_input_is_accepted_and_reported():
    model, _ = dense_model()
    config = model.layers[0].get_config()
    assert config["sparse"] is True and config["ragged"] is False
    assert config["batch_input_shape"] == FX["input_config"]["batch_input_shape"]
    assert getattr(model.inputs[0], "sparse", False) is True
    with pytest.raises(ValueError, match="both sparse and ragged"):
        tf.keras.Input(shape=(4,), sparse=True, ragged=True)


def test_call_and_predict_match_tf():
    model, _ = dense_model()
    np.testing.assert_allclose(model(st()).detach().numpy(), FX["call"], rtol=1e-6)
    np.testing.assert_allclose(model.predict(st(), batch_size=2, verbose=0), FX["predict"],
                               rtol=1e-6)
    dense_x = tf.sparse.to_dense(st())
    np.testing.assert_allclose(model(dense_x).detach().numpy(), FX["call"], rtol=1e-6)


def test_fit_matches_tf():
    model, dense = dense_model()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
    hist = model.fit(st(), y, batch_size=3, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], FX["fit_loss"], rtol=1e-5)
    np.testing.assert_allclose(dense.kernel.numpy(), FX["fit_kernel"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dense.bias.numpy(), FX["fit_bias"], rtol=1e-5, atol=1e-6)


def test_shuffled_batches_take_the_right_rows():
    model, _ = dense_model()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss="mse")
    y = np.array(FX["call"], np.float32)  # the exact outputs: zero loss whatever the order
    hist = model.fit(st(), y, batch_size=2, epochs=2, shuffle=True, verbose=0)
    assert max(hist.history["loss"]) < 1e-10
    assert model.evaluate(st(), y, batch_size=1, verbose=0) < 1e-10


def test_lambda_gets_the_sparse_tensor_and_other_layers_the_dense_one():
    inp = tf.keras.Input(shape=(4,), sparse=True)
    out = tf.keras.layers.Lambda(lambda s: tf.sparse.to_dense(s) * 3.0)(inp)
    np.testing.assert_allclose(tf.keras.Model(inp, out)(st()).numpy(), FX["lambda_dense"])
    inp2 = tf.keras.Input(shape=(4,), sparse=True)  # (TF 2.15's relu refuses a SparseTensor)
    relu = tf.keras.Model(inp2, tf.keras.layers.Activation("relu")(inp2))
    assert torch.equal(relu(st()), tf.sparse.to_dense(st()))


def test_dense_uses_a_sparse_matmul():
    layer = tf.keras.layers.Dense(3, activation="relu")
    x = tf.SparseTensor([[0, 1], [1, 0]], [2.0, -1.0], [2, 5])
    out = layer(x)
    assert layer.kernel.shape == (5, 3)
    assert torch.allclose(out, layer(tf.sparse.to_dense(x)))
    out.sum().backward()  # gradients reach the kernel through torch.sparse.mm
    grads = [p.grad for p in layer.parameters()]
    assert all(g is not None for g in grads) and float(grads[0].abs().sum()) > 0


def test_fit_and_predict_on_a_dataset_of_sparse_batches():
    model, _ = dense_model()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
    ds = tf.data.Dataset.from_tensor_slices((st(), y)).batch(3)
    hist = model.fit(ds, epochs=2, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], FX["fit_loss"], rtol=1e-5)
    out = model.predict(tf.data.Dataset.from_tensor_slices(st()).batch(2), verbose=0)
    assert out.shape == (3, 2)
    np.testing.assert_allclose(out, model(st()).detach().numpy(), rtol=1e-6)
