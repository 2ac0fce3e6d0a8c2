"""`tf.keras.models.experimental.SharpnessAwareMinimization` against TF 2.15 (fixtures/sam_tf215.npz,
made by tools/make_tf_spe_sam_fixtures.py: a Dense(2) model, SGD(0.1), mse, 2 epochs of one batch
of 8) and `tf.keras.models.model_from_yaml`."""

import os

import numpy as np
import pytest

import torchestimator as tf

REF = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "sam_tf215.npz"))


def make(splits):
    inner = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    inner.layers[0].set_weights([REF["kernel"], REF["bias"]])
    model = tf.keras.models.experimental.SharpnessAwareMinimization(
        inner, rho=0.05, num_batch_splits=splits)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    return inner, model


@pytest.mark.parametrize("splits", [None, 2])
def test_sam_update_matches_tf(splits):
    inner, model = make(splits)
    hist = model.fit(REF["x"], REF["y"], batch_size=8, epochs=2, shuffle=False, verbose=0)
    key = "none" if splits is None else str(splits)
    kernel, bias = inner.layers[0].get_weights()
    np.testing.assert_allclose(kernel, REF[f"kernel_{key}"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bias, REF[f"bias_{key}"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hist.history["loss"], REF[f"loss_{key}"], rtol=1e-5)
    np.testing.assert_allclose(hist.history["mae"], REF[f"mae_{key}"], rtol=1e-5)
    assert int(model.optimizer.iterations.numpy()) == 2


def test_sam_differs_from_plain_sgd_and_predicts_with_inner_model():
    inner, model = make(None)
    model.fit(REF["x"], REF["y"], batch_size=8, epochs=1, verbose=0)
    plain = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    plain.layers[0].set_weights([REF["kernel"], REF["bias"]])
    plain.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    plain.fit(REF["x"], REF["y"], batch_size=8, epochs=1, verbose=0)
    assert not np.allclose(plain.get_weights()[0], inner.get_weights()[0])
    np.testing.assert_allclose(model.predict(REF["x"], verbose=0),
                               inner.predict(REF["x"], verbose=0), rtol=1e-6)


def test_sam_config_round_trip():
    _, model = make(2)
    config = model.get_config()
    assert config["rho"] == 0.05 and config["num_batch_splits"] == 2
    clone = tf.keras.models.experimental.SharpnessAwareMinimization.from_config(config)
    assert clone.rho == 0.05 and clone.num_batch_splits == 2
    assert clone.model.get_config() == model.model.get_config()  # the architecture, new weights
    assert tuple(clone(REF["x"]).shape) == (8, 2)


def test_sam_errors():
    with pytest.raises(TypeError, match="`model` must be a tf.keras.Model"):
        tf.keras.models.experimental.SharpnessAwareMinimization(object())
    inner = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    with pytest.raises(ValueError, match="num_batch_splits"):
        tf.keras.models.experimental.SharpnessAwareMinimization(inner, num_batch_splits=0)
    _, model = make(3)
    with pytest.raises(ValueError, match="cannot be split into num_batch_splits=3"):
        model.fit(REF["x"], REF["y"], batch_size=8, epochs=1, verbose=0)


def test_model_from_yaml_raises_as_keras():
    with pytest.raises(RuntimeError) as info:
        tf.keras.models.model_from_yaml("class_name: Sequential")
    assert str(info.value) == (
        "Method `model_from_yaml()` has been removed due to security risk of arbitrary code "
        "execution. Please use `Model.to_json()` and `model_from_json()` instead.")
