"""`state_dict` keys depend only on the architecture and the names the user gave (issue 29):
a model's layers are torch children keyed by the user-given name, else by their index in
`model.layers`; Keras' own files and TF's variable names keep the Keras layer names."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch
from safetensors.torch import load as load_safetensors

import torchestimator as tf
from torchestimator.keras.engine.layer_utils import keras_state_dict
from torchestimator.keras.saving.saving_lib import weights_to_bytes

layers = tf.keras.layers
X = np.random.default_rng(0).normal(size=(6, 3)).astype(np.float32)


def _sequential() -> tf.keras.Sequential:
    return tf.keras.Sequential([
        layers.Dense(4, activation="relu", input_shape=(3,)),
        layers.BatchNormalization(),
        layers.Dropout(0.5),
        layers.Dense(2, name="head"),
    ])


def _functional() -> tf.keras.Model:
    inputs = tf.keras.Input(shape=(3,))
    hidden = layers.Dense(4, activation="relu")(inputs)
    return tf.keras.Model(inputs, layers.Dense(1, name="out")(layers.Dense(4)(hidden)))


class _Subclassed(tf.keras.Model):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = _sequential()
        self.proj = layers.Dense(1)

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.proj(self.encoder(inputs))


def test_sequential_keys_are_positions_or_user_names():
    model = _sequential()
    assert list(model.state_dict()) == [
        "0.kernel", "0.bias", "1.gamma", "1.beta", "1.moving_mean", "1.moving_variance",
        "head.kernel", "head.bias",
    ]
    assert model.layers[0].name.startswith("dense")  # the Keras name is unchanged


def test_functional_keys_are_indices_in_model_layers():
    model = _functional()
    assert list(model.state_dict()) == ["1.kernel", "1.bias", "2.kernel", "2.bias",
                                        "out.kernel", "out.bias"]
    assert model.get_layer(index=1) is model._modules["1"]


@pytest.mark.parametrize("make", [_sequential, _functional, _Subclassed])
def test_two_instances_exchange_state_dicts(make):
    first, second = make(), make()
    first(X), second(X)
    assert list(first.state_dict()) == list(second.state_dict())
    second.load_state_dict(first.state_dict(), strict=True)
    np.testing.assert_allclose(second(X).numpy(), first(X).numpy(), rtol=1e-6)


def test_subclassed_models_keep_attribute_names():
    model = _Subclassed()
    model(X)
    assert list(model.state_dict())[:2] == ["encoder.0.kernel", "encoder.0.bias"]
    assert "proj.kernel" in model.state_dict()


def test_nested_models_key_their_own_layers():
    inner = _functional()
    inputs = tf.keras.Input(shape=(3,))
    outer = tf.keras.Model(inputs, layers.Dense(2)(inner(inputs)))
    assert list(outer.state_dict())[:2] == ["1.1.kernel", "1.1.bias"]
    assert list(outer.state_dict())[-2:] == ["2.kernel", "2.bias"]


def test_copies_and_loaded_models_have_the_same_keys(tmp_path):
    model = _functional()
    keys = list(model.state_dict())
    assert list(copy.deepcopy(model).state_dict()) == keys
    assert list(pickle.loads(pickle.dumps(model)).state_dict()) == keys
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert list(loaded.state_dict()) == keys
    _functional().load_state_dict(loaded.state_dict(), strict=True)


def test_keras_files_keep_layer_names(tmp_path):
    model = _sequential()
    names = [layer.name for layer in model.layers]
    saved = load_safetensors(weights_to_bytes(model))
    assert set(saved) == set(keras_state_dict(model))
    assert f"{names[0]}.kernel" in saved and f"{names[1]}.moving_mean" in saved
    assert "head.kernel" in saved
    path = str(tmp_path / "w.weights.h5")
    model.save_weights(path)
    other = _sequential()
    other.load_weights(path)  # other layer names: matched by order, as Keras does
    np.testing.assert_allclose(other(X).numpy(), model(X).numpy(), rtol=1e-6)
    other.load_weights(path, by_name=True)  # the user-named `head` matches by name


def test_strict_errors_name_the_layers():
    model = _sequential()
    state = model.state_dict()
    state.pop("0.bias")
    state["9.kernel"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as info:
        _sequential().load_state_dict(state)
    message = str(info.value)
    assert 'missing in layer "0" (dense' in message and "(Dense): bias" not in message
    assert "Dense): bias" in message
    assert 'unexpected in no layer at "9": kernel' in message


def test_strict_error_hints_at_keras_named_keys():
    model = _sequential()
    with pytest.raises(RuntimeError, match="Keras layer names"):
        model.load_state_dict(keras_state_dict(model))


def test_user_names_that_cannot_be_keys_fall_back_to_positions():
    inputs = tf.keras.Input(shape=(3,))
    x = layers.Dense(2, name="a.b")(inputs)
    model = tf.keras.Model(inputs, layers.Dense(1, name="output")(x))  # `output` is a property
    assert list(model.state_dict()) == ["1.kernel", "1.bias", "2.kernel", "2.bias"]
    assert list(keras_state_dict(model)) == ["layer_a.b.kernel", "layer_a.b.bias",
                                             "layer_output.kernel", "layer_output.bias"]


def test_estimator_variable_names_keep_layer_names(tmp_path):
    def model_fn(features, labels, mode):
        model = tf.keras.Sequential([layers.Dense(2, activation="relu"), layers.Dense(1, name="out")])
        predictions = model(features["x"])
        loss = torch.mean((predictions - labels) ** 2)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": X}, X[:, :1])).batch(3)

    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    estimator.train(input_fn, steps=2)
    names = estimator.get_variable_names()
    assert "dense/kernel" in names and "out/bias" in names, names
    assert not any(part.isdigit() for name in names for part in name.split("/")), names
