"""A softmax or sigmoid output carries its logits (`_keras_logits`, as Keras 2.15's backend
sets it), so the crossentropy losses compute from the logits: exact where the probabilities
underflow, and what TF's fit computes."""

import numpy as np
import pytest
import torch

import torchestimator as tf


def _dense(units, activation, kernel):
    layer = tf.keras.layers.Dense(units, activation=activation, use_bias=False)
    layer.build((None, kernel.shape[0]))
    layer.set_weights([kernel])
    return layer


def test_categorical_crossentropy_after_a_softmax_dense_uses_the_logits():
    layer = _dense(2, "softmax", np.array([[0.0, 100.0]], dtype=np.float32))
    probs = layer(torch.ones(1, 1))
    assert probs._keras_logits is not None
    loss = tf.keras.losses.categorical_crossentropy(torch.tensor([[1.0, 0.0]]), probs)
    # From the clipped probabilities it would be -log(1e-7) = 16.1; from the logits it is 100.
    np.testing.assert_allclose(loss.detach().numpy(), [100.0], rtol=1e-6)
    sparse = tf.keras.losses.sparse_categorical_crossentropy(torch.tensor([0]), probs)
    np.testing.assert_allclose(sparse.detach().numpy(), [100.0], rtol=1e-6)


def test_binary_crossentropy_after_a_sigmoid_uses_the_logits():
    probs = tf.keras.activations.sigmoid(torch.tensor([[40.0]]))
    loss = tf.keras.losses.binary_crossentropy(torch.tensor([[0.0]]), probs)
    np.testing.assert_allclose(loss.numpy(), [40.0], rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda x: tf.keras.activations.softmax(x),
    lambda x: tf.keras.layers.Activation("softmax")(x),
    lambda x: tf.keras.layers.Softmax()(x),
])
def test_every_softmax_path_keeps_its_logits(make):
    x = torch.tensor([[1.0, 2.0, 3.0]])
    out = make(x)
    torch.testing.assert_close(out, torch.softmax(x, -1))
    assert out._keras_logits is not None
    torch.testing.assert_close(out._keras_logits, x)


def test_fit_with_softmax_and_categorical_crossentropy_reports_the_logits_loss():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 5)).astype(np.float32)
    y = tf.keras.utils.to_categorical(rng.integers(0, 3, 64), 3)
    model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="categorical_crossentropy")
    loss = model.evaluate(x, y, batch_size=64, verbose=0)
    kernel, bias = (np.asarray(w) for w in model.layers[0].weights)  # host copies, on any device
    logits = torch.from_numpy(x) @ torch.from_numpy(kernel) + torch.from_numpy(bias)
    expected = torch.nn.functional.cross_entropy(logits, torch.from_numpy(y)).item()
    assert loss == pytest.approx(expected, rel=1e-6)
