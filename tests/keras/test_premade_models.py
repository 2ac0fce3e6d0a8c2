"""Keras 2.15's premade models: `tf.keras.experimental.LinearModel` and `WideDeepModel`
(keras/premade_models/linear.py and wide_deep.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.feature_column._linear_model import (
    LinearModel as FeatureColumnLinearModel,
)
from torchestimator.keras.premade_models import LinearModel, WideDeepModel


def _data(n: int = 64, dim: int = 2, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).uniform(-1, 1, (n, dim)).astype("float32")


def _np(t: torch.Tensor | np.ndarray) -> np.ndarray:
    return t if isinstance(t, np.ndarray) else t.detach().cpu().numpy()


def _dnn() -> tf.keras.Model:
    return tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])


def _copies(weights: list) -> list[np.ndarray]:
    return [_np(w).copy() for w in weights]


def _changed(before: list[np.ndarray], weights: list) -> list[bool]:
    return [not np.array_equal(b, _np(w)) for b, w in zip(before, weights)]


def test_public_names_are_the_premade_models():
    assert tf.keras.experimental.LinearModel is LinearModel
    assert tf.keras.experimental.WideDeepModel is WideDeepModel
    assert tf.compat.v1.keras.experimental.LinearModel is LinearModel
    assert issubclass(LinearModel, tf.keras.Model) and issubclass(WideDeepModel, tf.keras.Model)
    assert LinearModel is not FeatureColumnLinearModel  # the estimators' layer stays private


def test_linear_model_fits_y_equals_2x_plus_1():
    tf.keras.utils.set_random_seed(0)
    x = _data(256, 1)
    y = 2.0 * x + 1.0
    model = LinearModel()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="mse")
    history = model.fit(x, y, epochs=20, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < 1e-4
    np.testing.assert_allclose(_np(model.dense_layers[0].kernel), [[2.0]], atol=1e-2)
    np.testing.assert_allclose(_np(model.bias), [1.0], atol=1e-2)
    np.testing.assert_allclose(_np(model.predict(x, verbose=0)), y, atol=1e-2)


def test_weights_start_at_zero_and_activation_applies():
    x = _data(8, 3)
    model = LinearModel(units=2, activation="sigmoid")
    out = model(x)
    assert out.shape == (8, 2)
    np.testing.assert_allclose(_np(out), 0.5)  # sigmoid(0): kernel and bias start at zero
    assert [tuple(w.shape) for w in model.weights] == [(3, 2), (2,)]
    no_bias = LinearModel(use_bias=False)
    no_bias(x)
    assert no_bias.bias is None and len(no_bias.weights) == 1


def test_list_inputs_one_kernel_each_summed():
    x1, x2 = _data(8, 2, seed=1), _data(8, 3, seed=2)
    model = LinearModel(kernel_initializer="ones", bias_initializer="ones")
    out = model([x1, x2])
    assert [tuple(layer.kernel.shape) for layer in model.dense_layers] == [(2, 1), (3, 1)]
    expected = x1.sum(axis=1, keepdims=True) + x2.sum(axis=1, keepdims=True) + 1.0
    np.testing.assert_allclose(_np(out), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="built for 2 input"):
        model([x1])


def test_dict_inputs_sorted_by_key_and_checked():
    a, b = _data(8, 1, seed=3), _data(8, 3, seed=4)
    model = LinearModel()
    model({"b": b, "a": a})
    assert [layer.name for layer in model.dense_layers] == ["a", "b"]
    assert [tuple(layer.kernel.shape) for layer in model.dense_layers] == [(1, 1), (3, 1)]
    model.set_weights([np.array([[3.0]]), np.array([[1.0], [2.0], [0.0]]), np.array([0.5])])
    expected = 3.0 * a + b[:, :1] + 2.0 * b[:, 1:2] + 0.5
    np.testing.assert_allclose(_np(model({"a": a, "b": b, "extra": b})), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="Missing keys"):
        model({"a": a})


def test_dict_inputs_train_with_fit():
    tf.keras.utils.set_random_seed(0)
    a, b = _data(128, 1, seed=5), _data(128, 2, seed=6)
    y = 3.0 * a - b[:, :1] + 0.5
    model = LinearModel()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="mse")
    model.fit({"a": a, "b": b}, y, epochs=30, batch_size=32, verbose=0)
    np.testing.assert_allclose(_np(model.dense_layers[0].kernel), [[3.0]], atol=2e-2)
    np.testing.assert_allclose(_np(model.dense_layers[1].kernel), [[-1.0], [0.0]], atol=2e-2)


def test_linear_config_round_trip_gives_the_same_outputs():
    x = _data(8, 3)
    model = LinearModel(units=2, activation="tanh", kernel_initializer="glorot_uniform",
                        bias_initializer="ones", kernel_regularizer="l2", name="lin")
    out = model(x)
    config = model.get_config()
    assert {k: config[k] for k in ("units", "activation", "use_bias", "name")} == {
        "units": 2, "activation": "tanh", "use_bias": True, "name": "lin"}
    clone = LinearModel.from_config(config)
    clone(x)
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(_np(clone(x)), _np(out), rtol=1e-6)
    assert clone.get_config() == config
    assert len(model.losses) == 1  # the kernel regularizer
    # a bare 'LinearModel' config is the premade model, as in Keras 2.15's layer registry
    rebuilt = tf.keras.layers.deserialize({"class_name": "LinearModel", "config": config})
    assert type(rebuilt) is LinearModel


def test_feature_column_linear_model_config_still_finds_its_class():
    column = tf.feature_column.numeric_column("x")
    layer = FeatureColumnLinearModel([column], units=1)
    serialized = tf.keras.layers.serialize(layer)
    assert type(tf.keras.layers.deserialize(serialized)) is FeatureColumnLinearModel
    # without the module field too: the premade class hands a feature-column config over
    serialized.pop("module", None)
    assert type(tf.keras.layers.deserialize(serialized)) is FeatureColumnLinearModel


def test_linear_model_saves_and_loads_in_keras_format(tmp_path):
    x = _data(16, 2)
    model = LinearModel(kernel_initializer="glorot_uniform", bias_initializer="ones")
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, x[:, :1], epochs=1, verbose=0)
    path = str(tmp_path / "linear.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert type(loaded) is LinearModel
    np.testing.assert_allclose(_np(loaded(x)), _np(model(x)), rtol=1e-6)


def test_wide_deep_sums_both_parts_with_one_or_two_inputs():
    x1, x2 = _data(8, 2, seed=1), _data(8, 3, seed=2)
    linear = LinearModel(kernel_initializer="ones")
    dnn = _dnn()
    model = WideDeepModel(linear, dnn, activation="sigmoid")
    out = model([x1, x2])
    expected = torch.sigmoid(linear(x1) + dnn(x2))
    np.testing.assert_allclose(_np(out), _np(expected), rtol=1e-6)
    same = WideDeepModel(LinearModel(), _dnn())
    y = same(x2)  # one input feeds both parts
    np.testing.assert_allclose(_np(y), _np(same.linear_model(x2) + same.dnn_model(x2)), rtol=1e-6)


def test_wide_deep_trains_with_one_optimizer():
    tf.keras.utils.set_random_seed(0)
    x = _data(64, 2)
    y = 2.0 * x[:, :1] - x[:, 1:] + 1.0
    linear, dnn = LinearModel(), _dnn()
    model = WideDeepModel(linear, dnn)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mse"])
    model([x[:2], x[:2]])
    lin_before, dnn_before = _copies(linear.weights), _copies(dnn.weights)
    history = model.fit([x, x], y, epochs=3, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert all(_changed(lin_before, linear.weights)) and any(_changed(dnn_before, dnn.weights))


@pytest.mark.parametrize("frozen", ["linear", "dnn"])
def test_wide_deep_two_optimizers_each_train_their_part(frozen):
    tf.keras.utils.set_random_seed(0)
    x = _data(64, 2)
    y = 2.0 * x[:, :1] - x[:, 1:] + 1.0
    linear, dnn = LinearModel(), _dnn()
    model = WideDeepModel(linear, dnn)
    rates = (0.0, 0.1) if frozen == "linear" else (0.1, 0.0)
    model.compile(optimizer=[tf.keras.optimizers.SGD(rates[0]), tf.keras.optimizers.Adam(rates[1])],
                  loss="mse")
    model(x)
    lin_before, dnn_before = _copies(linear.weights), _copies(dnn.weights)
    model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert isinstance(model.optimizer, list) and len(model.optimizer) == 2
    assert np.isfinite(model.evaluate(x, y, verbose=0))
    assert int(model.optimizer[0].iterations) == int(model.optimizer[1].iterations) == 8
    lin_moved, dnn_moved = _changed(lin_before, linear.weights), _changed(dnn_before, dnn.weights)
    if frozen == "linear":
        assert not any(lin_moved) and any(dnn_moved)
    else:
        assert all(lin_moved) and not any(dnn_moved)


def test_wide_deep_two_optimizers_by_name_and_torch():
    x = _data(32, 2)
    y = x[:, :1]
    linear, dnn = LinearModel(), _dnn()
    model = WideDeepModel(linear, dnn)
    model.compile(optimizer=["sgd", "adam"], loss="mse")
    assert type(model.optimizer[0]).__name__ == "SGD" and type(model.optimizer[1]).__name__ == "Adam"
    assert model.get_compile_config()["optimizer"] == ["sgd", "adam"]
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    lin_before, dnn_before = _copies(linear.weights), _copies(dnn.weights)
    model.compile(optimizer=[torch.optim.SGD(linear.parameters(), lr=0.1),
                             torch.optim.SGD(dnn.parameters(), lr=0.0)], loss="mse")
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    assert all(_changed(lin_before, linear.weights)) and not any(_changed(dnn_before, dnn.weights))


def test_wide_deep_config_round_trip_and_keras_file(tmp_path):
    x = _data(8, 2)
    model = WideDeepModel(LinearModel(units=1), _dnn(), activation="relu", name="wd")
    out = model(x)
    config = model.get_config()
    assert config["name"] == "wd" and config["activation"] == "relu"
    assert config["linear_model"]["class_name"] == "LinearModel"
    clone = WideDeepModel.from_config(config)
    clone(x)
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(_np(clone(x)), _np(out), rtol=1e-6)
    model.compile(optimizer=["sgd", "adam"], loss="mse")
    path = str(tmp_path / "wd.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert type(loaded) is WideDeepModel and type(loaded.linear_model) is LinearModel
    np.testing.assert_allclose(_np(loaded(x)), _np(out), rtol=1e-6)
    assert [type(o).__name__ for o in loaded.optimizer] == ["SGD", "Adam"]


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="positive integer"):
        LinearModel(units=0)
    with pytest.raises(TypeError, match="premade linear model.*feature_columns"):
        LinearModel(feature_columns=[tf.feature_column.numeric_column("x")])
    with pytest.raises(TypeError, match="linear_model` must be a Keras model"):
        WideDeepModel("linear", _dnn())
    with pytest.raises(TypeError, match="dnn_model` must be a Keras model"):
        WideDeepModel(LinearModel(), torch.nn.Linear(2, 1))
    shared = LinearModel()
    with pytest.raises(ValueError, match="two different models"):
        WideDeepModel(shared, shared)
    model = WideDeepModel(LinearModel(), _dnn())
    with pytest.raises(ValueError, match="must hold two"):
        model.compile(optimizer=["sgd", "adam", "sgd"], loss="mse")
    opt = tf.keras.optimizers.SGD()
    with pytest.raises(ValueError, match="two different optimizer objects"):
        model.compile(optimizer=[opt, opt], loss="mse")
    with pytest.raises(ValueError, match="same structure"):
        WideDeepModel(LinearModel(), tf.keras.layers.Lambda(lambda t: [t, t]))(_data(4, 1))


class _StopAtEpoch(tf.keras.callbacks.Callback):
    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise RuntimeError("Interrupting!")


def test_wide_deep_two_optimizers_resume_from_a_backup_as_if_never_stopped(tmp_path):
    x = _data(64, 2)
    y = 2.0 * x[:, :1] - x[:, 1:] + 1.0

    def fresh():
        tf.keras.utils.set_random_seed(3)
        model = WideDeepModel(LinearModel(), _dnn())
        model.compile(optimizer=["sgd", "adam"], loss="mse")
        return model

    reference = fresh()
    reference.fit(x, y, epochs=4, batch_size=16, shuffle=False, verbose=0)
    backup = str(tmp_path / "backup")
    stopped = fresh()
    with pytest.raises(RuntimeError, match="Interrupting!"):
        stopped.fit(x, y, epochs=4, batch_size=16, shuffle=False, verbose=0,
                    callbacks=[tf.keras.callbacks.BackupAndRestore(backup), _StopAtEpoch(2)])
    resumed = fresh()  # a new process: new weights, new optimizers without state
    history = resumed.fit(x, y, epochs=4, batch_size=16, shuffle=False, verbose=0,
                          callbacks=[tf.keras.callbacks.BackupAndRestore(backup)])
    assert history.epoch == [2, 3]
    assert [int(o.iterations) for o in resumed.optimizer] == [16, 16]
    for got, want in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_wide_deep_two_optimizers_refuse_a_single_optimizer_state():
    model = WideDeepModel(LinearModel(), _dnn())
    model.compile(optimizer=["sgd", "adam"], loss="mse")
    with pytest.raises(ValueError, match=r"needs \['linear_optimizer', 'dnn_optimizer'\]"):
        model._load_optimizer_state({"iterations": 3, "variables": {}})
