"""Keras 2.15 `Model` methods: the step functions (make_train_function, ...), the deprecated
*_generator fronts, reset_states, save_spec, get_weight_paths, to_yaml, and
CallbackList.make_logs. Expected values were printed with TensorFlow 2.15.1."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import torchestimator as tf

X = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 2.0], [3.0, 0.0, 1.0], [-1.0, 1.0, 0.0]], "float32")
Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], "float32")


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, kernel_initializer="ones", input_shape=(3,))])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return model


def _rounded(logs):
    return {k: round(float(v), 5) for k, v in logs.items()}


def test_make_train_function_runs_train_steps_on_an_iterator():
    model = _model()
    assert model.train_function is None
    fn = model.make_train_function()
    assert fn is model.train_function and model.make_train_function() is fn
    assert model.make_train_function(force=True) is not fn
    fn = model.train_function
    it = iter(tf.data.Dataset.from_tensor_slices((X, Y)).batch(2))
    assert _rounded(fn(it)) == {"loss": 15.5, "mae": 3.0}
    assert _rounded(fn(it)) == {"loss": 8.07875, "mae": 1.8875}
    with pytest.raises(tf.errors.OutOfRangeError):
        fn(it)
    np.testing.assert_allclose(model.weights[0].numpy(),
                               [[0.56, 0.535], [0.575, 0.43], [0.095, 0.055]], rtol=1e-5)
    test_fn = model.make_test_function()
    logs = test_fn(iter(tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)))
    assert _rounded(logs) == {"loss": 4.39996, "mae": 1.30531}
    predict_fn = model.make_predict_function()
    out = predict_fn(iter(tf.data.Dataset.from_tensor_slices(X).batch(3)))
    np.testing.assert_allclose(np.asarray(out), [[1.665, 1.245], [-0.715, -0.635], [1.445, 1.345]],
                               rtol=1e-5)


def test_compile_clears_and_the_fronts_set_the_step_functions():
    model = _model()
    model.make_train_function()
    model.compile("sgd", "mse")
    assert (model.train_function, model.test_function, model.predict_function) == (None, None, None)
    model.fit(X, Y, verbose=0)
    assert model.train_function is not None and model.test_function is None
    model.evaluate(X, Y, verbose=0)
    model.predict(X, verbose=0)
    assert model.test_function is not None and model.predict_function is not None
    restored = pickle.loads(pickle.dumps(model))
    assert restored.train_function.model is restored


def test_steps_per_execution_steps_per_call():
    model = _model()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"], steps_per_execution=2)
    fn = model.make_train_function()
    it = iter(tf.data.Dataset.from_tensor_slices((X, Y)).batch(1))
    assert _rounded(fn(it)) == {"loss": 18.0625, "mae": 3.875}  # the logs after two steps
    assert _rounded(fn(it)) == {"loss": 9.36877, "mae": 2.265}
    assert int(model.optimizer.iterations) == 4


def test_fit_runs_an_overriding_make_train_function():
    calls = []

    class Custom(tf.keras.Sequential):
        def make_train_function(self, force=False):
            function = super().make_train_function(force)

            def counted(iterator):
                calls.append(1)
                return function(iterator)

            return counted

    model = Custom([tf.keras.layers.Dense(2, input_shape=(3,))])
    model.compile("sgd", "mse")
    model.fit(X, Y, batch_size=2, epochs=2, verbose=0)
    assert len(calls) == 4 and int(model.optimizer.iterations) == 4


def test_generator_fronts_warn_and_delegate():
    model = _model()

    def gen():
        while True:
            yield np.ones((2, 3), "float32"), np.ones((2, 2), "float32")

    with pytest.warns(UserWarning, match="`Model.fit_generator` is deprecated"):
        history = model.fit_generator(gen(), steps_per_epoch=2, epochs=2, verbose=0)
    assert sorted(history.history) == ["loss", "mae"] and len(history.history["loss"]) == 2
    with pytest.warns(UserWarning, match="`Model.evaluate_generator` is deprecated"):
        assert len(model.evaluate_generator(gen(), steps=2)) == 2
    with pytest.warns(UserWarning, match="`Model.predict_generator` is deprecated"):
        assert model.predict_generator((x for x, _ in gen()), steps=3).shape == (6, 2)


def test_reset_states_resets_stateful_layers():
    model = tf.keras.Sequential([
        tf.keras.layers.LSTM(2, stateful=True, batch_input_shape=(1, 3, 1)),
    ])
    first = np.asarray(model(np.ones((1, 3, 1), "float32")))
    second = np.asarray(model(np.ones((1, 3, 1), "float32")))
    assert not np.allclose(first, second)
    model.reset_states()
    np.testing.assert_allclose(np.asarray(model(np.ones((1, 3, 1), "float32"))), first, rtol=1e-6)


def test_save_spec():
    inputs = tf.keras.Input((10,), batch_size=10)
    functional = tf.keras.Model(inputs, tf.keras.layers.Dense(3)(inputs))
    (spec,), kwargs = functional.save_spec()  # TF: the Input's spec, batch size kept
    assert kwargs == {} and tuple(spec.shape) == (10, 10) and spec.name == inputs.name
    sequential = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    (spec,), _ = sequential.save_spec()
    assert tuple(spec.shape) == (None, 4) and spec.name.endswith("_input")
    deferred = tf.keras.Sequential([tf.keras.layers.Dense(3)])
    assert deferred.save_spec() is None
    deferred(np.zeros((3, 4), "float32"))
    assert tuple(deferred.save_spec()[0][0].shape) == (None, 4)
    assert tuple(deferred.save_spec(dynamic_batch=False)[0][0].shape) == (3, 4)

    class Sub(tf.keras.Model):
        def call(self, x):
            return x["a"] + x["b"]

    sub = Sub()
    assert sub.save_spec() is None
    sub({"a": np.ones((2, 3), "float32"), "b": np.ones((2, 3), "float32")})
    (specs,), _ = sub.save_spec()
    assert {k: (tuple(s.shape), s.name, s.dtype) for k, s in specs.items()} == {
        "a": ((None, 3), "a", tf.float32), "b": ((None, 3), "b", tf.float32)}

    class Pair(tf.keras.Model):
        def call(self, x):
            return x[0] + x[1]

    pair = Pair()
    pair([np.ones((2, 3), "float32"), np.ones((2, 3), "float32")])
    (specs,), _ = pair.save_spec(dynamic_batch=False)
    assert [(tuple(s.shape), s.name) for s in specs] == [((2, 3), "input_1"), ((2, 3), "input_2")]


def test_get_weight_paths():
    inputs = tf.keras.Input((10,))
    x = tf.keras.layers.Dense(20, name="d1")(inputs)
    x = tf.keras.layers.BatchNormalization(name="bn")(x)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(30, name="d2")(x))
    paths = model.get_weight_paths()
    assert list(paths) == ["d1.kernel", "d1.bias", "bn.gamma", "bn.beta", "bn.moving_mean",
                           "bn.moving_variance", "d2.kernel", "d2.bias"]
    assert paths["bn.moving_mean"] is model.get_layer("bn").moving_mean

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d1 = tf.keras.layers.Dense(10)
            self.d2 = tf.keras.layers.Dense(2)
            self.blocks = [tf.keras.layers.Dense(3)]
            self.lstm = tf.keras.layers.LSTM(2)

        def call(self, x):
            return self.d2(self.blocks[0](self.d1(x))) + self.lstm(x[:, None])

    sub = Sub()
    assert sub.get_weight_paths() == {}
    sub(np.zeros((2, 5), "float32"))
    assert sorted(sub.get_weight_paths()) == sorted([
        "d1.kernel", "d1.bias", "d2.kernel", "d2.bias", "blocks.0.kernel", "blocks.0.bias",
        "lstm.cell.kernel", "lstm.cell.recurrent_kernel", "lstm.cell.bias"])


def test_to_yaml_is_removed():
    with pytest.raises(RuntimeError, match=r"Method `model.to_yaml\(\)` has been removed due to "
                                           r"security risk of arbitrary code execution"):
        _model().to_yaml()


def test_callback_list_make_logs():
    model = _model()
    model.fit(np.zeros((2, 3)), np.zeros((2, 2)), verbose=0)
    callbacks = tf.keras.callbacks.CallbackList([tf.keras.callbacks.Callback()])
    assert callbacks.make_logs(model, {}, [1.0, 2.0], "train") == {"loss": 1.0, "mae": 2.0}
    assert callbacks.make_logs(model, {"a": 1}, [3.0, 4.0], "test", prefix="val_") == {
        "a": 1, "val_loss": 3.0, "val_mae": 4.0}
    assert callbacks.make_logs(model, {}, [5.0], "predict") == {"outputs": [5.0]}
    assert tf.keras.callbacks.CallbackList().make_logs(model, {"x": 1}, [1.0], "train") == {"x": 1}
