"""A functional model's `add_loss` and `add_metric` on symbolic tensors of its graph (the
Keras VAE example's `vae.add_loss(kl_loss)`): computed at every call, trained and reported
as TF 2.15's. The expected figures were printed by TF 2.15.1 for the same program."""

import numpy as np
import pytest

import torchestimator as tf


def _model():
    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.Dense(4, kernel_initializer="ones", name="hidden")(inputs)
    side = tf.keras.layers.Dense(2, kernel_initializer="ones", name="side")(hidden)  # loss only
    outputs = tf.keras.layers.Dense(1, kernel_initializer="ones", name="out")(hidden)
    model = tf.keras.Model(inputs, outputs)
    model.add_loss(0.01 * tf.reduce_mean(tf.square(side)))
    model.add_metric(tf.reduce_mean(hidden), name="mean_hidden")
    return model


def _data():
    x = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
    return x, x.sum(1, keepdims=True)


def test_fit_trains_the_symbolic_loss_and_reports_the_metric_as_tf():
    model = _model()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    x, y = _data()
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [22.88517, 5.50268], rtol=1e-4)
    np.testing.assert_allclose(history.history["mean_hidden"], [-0.0027, 0.03592], atol=1e-4)
    assert model.evaluate(x, y, verbose=0)[0] == pytest.approx(2.44279, rel=1e-4)
    assert len(model.losses) == 1 and len(model.trainable_weights) == 6
    # the layer that only feeds the loss is the model's, and is trained by it
    np.testing.assert_allclose(np.asarray(model.get_layer("side").kernel).ravel()[:3],
                               [0.99543] * 3, rtol=1e-4)


def test_a_call_adds_the_loss_and_a_nested_model_passes_it_on():
    model = _model()
    x, _ = _data()
    model(x)
    side = x.sum(1) * 4 * 2 / 2  # each side unit: 4 hidden units of sum(x), no bias
    assert float(model.losses[0]) == pytest.approx(0.01 * np.mean(side ** 2), rel=1e-5)
    outer_in = tf.keras.Input(shape=(3,))
    outer = tf.keras.Model(outer_in, model(outer_in))
    outer(x)
    assert len(outer.losses) == 1 and float(outer.losses[0]) == pytest.approx(
        float(model.losses[0]), rel=1e-6)


def test_a_tensor_not_computed_from_the_inputs_is_refused_and_the_config_warns(tmp_path):
    model = _model()
    stranger = tf.keras.Input(shape=(3,))
    with pytest.raises(ValueError, match="computed from the model's inputs"):
        model.add_loss(tf.reduce_sum(stranger))
    with pytest.raises(ValueError, match="provide a name"):
        model.add_metric(tf.reduce_sum(model.outputs[0]))
    with pytest.warns(UserWarning, match="not part of its config"):
        config = model.get_config()
    assert "side" not in [layer["name"] for layer in config["layers"]]  # only the graph's
