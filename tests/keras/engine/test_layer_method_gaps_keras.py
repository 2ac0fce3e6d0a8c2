"""Keras 2.15 `Layer` methods: add_metric, add_update, add_variable, finalize_state, the
node-indexed accessors (get_input_at, ...), save/load_own_variables and with_name_scope.
Expected values were printed with TensorFlow 2.15.1."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf


class _MetricLayer(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__(name="ml")
        self.mean = tf.keras.metrics.Mean(name="metric_1")

    def call(self, inputs):
        self.add_metric(self.mean(inputs))
        self.add_metric(tf.reduce_sum(inputs), name="metric_2")
        return inputs


def test_add_metric_is_reported_by_fit_and_evaluate_as_tf():
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(2, kernel_initializer="ones", input_shape=(3,)), _MetricLayer()])
    assert [m.name for m in model.metrics] == ["metric_1", "metric_2"]
    model.compile("sgd", "mse", metrics=["mae"])
    x = np.arange(12, dtype="float32").reshape(4, 3)
    y = np.zeros((4, 2))
    history = model.fit(x, y, batch_size=2, epochs=1, verbose=0, shuffle=False).history
    # TF 2.15: {'loss': [220.07301], 'mae': [13.13625], 'metric_1': [13.13625], 'metric_2': [52.545]}
    np.testing.assert_allclose(history["loss"], [220.073013], rtol=1e-5)
    np.testing.assert_allclose(history["metric_1"], [13.13625], rtol=1e-5)
    np.testing.assert_allclose(history["metric_2"], [52.545002], rtol=1e-5)
    assert model.metrics_names == ["loss", "mae", "metric_1", "metric_2"]
    logs = model.evaluate(x, y, batch_size=2, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["metric_1"], -15.65385, rtol=1e-5)
    np.testing.assert_allclose(logs["metric_2"], -62.615402, rtol=1e-5)


def test_add_metric_on_a_layer_and_its_errors():
    layer = _MetricLayer()
    layer(tf.ones((2, 2)))
    layer(tf.ones((2, 2)))
    assert [m.name for m in layer.metrics] == ["metric_1", "metric_2"]
    assert [float(m.result()) for m in layer.metrics] == [1.0, 4.0]
    with pytest.raises(ValueError, match="Expected a symbolic Tensor for the metric value"):
        layer.add_metric(tf.constant(1.0), name="a")  # outside a call
    with pytest.raises(ValueError, match="Please provide a name for your metric"):
        layer.add_metric(tf.constant(1.0))
    with pytest.raises(TypeError, match="Expected `aggregation`"):
        layer.add_metric(tf.constant(1.0), name="a", foo=1)


def test_add_update_runs_callables_unless_frozen():
    v = tf.Variable(0.0)

    class Updating(tf.keras.layers.Layer):
        def call(self, x):
            self.add_update(lambda: v.assign_add(1.0))
            self.add_update([lambda: v.assign_add(10.0)])
            return x

    layer = Updating()
    layer(tf.ones(1))
    assert float(v) == 11.0
    layer.trainable = False
    layer(tf.ones(1))
    assert float(v) == 11.0  # TF 2.15: trainable=False disables the callables


def test_add_variable_is_a_deprecated_add_weight_and_finalize_state_a_hook():
    dense = tf.keras.layers.Dense(2)
    with pytest.warns(UserWarning, match="`layer.add_variable` is deprecated"):
        w = dense.add_variable("foo", shape=(2,))
    assert tuple(w.shape) == (2,) and dense.weights == [w]
    assert dense.finalize_state() is None


def test_node_accessors_by_index():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((5, 3), name="b")
    dense = tf.keras.layers.Dense(2, name="d")
    ya = dense(a)
    dense(b)
    assert dense.get_input_at(0) is a and dense.get_input_at(1) is b
    assert dense.get_output_at(0) is ya
    assert dense.get_input_shape_at(1) == (None, 5, 3)
    assert dense.get_output_shape_at(0) == (None, 2)
    assert dense.get_output_shape_at(1) == (None, 5, 2)
    assert dense.get_input_mask_at(0) is None and dense.get_output_mask_at(0) is None
    concat = tf.keras.layers.Concatenate()
    concat([ya, ya])
    assert concat.get_input_at(0) == [ya, ya]
    assert concat.get_input_shape_at(0) == [(None, 2), (None, 2)]
    assert concat.get_output_shape_at(0) == (None, 4)
    rnn = tf.keras.layers.LSTM(2, return_state=True)
    rnn(b)
    assert rnn.get_output_shape_at(0) == [(None, 2), (None, 2), (None, 2)]
    with pytest.raises(ValueError, match="Asked to get input at node 2, but the layer has only 2 inbound nodes"):
        dense.get_input_at(2)
    with pytest.raises(RuntimeError, match="The layer x has never been called and thus has no defined output shape"):
        tf.keras.layers.Dense(2, name="x").get_output_shape_at(0)
    input_layer = a._keras_history.layer
    assert input_layer.get_input_at(0) is a and input_layer.get_input_shape_at(0) == (None, 3)


def test_node_masks():
    masked = tf.keras.layers.Masking()(tf.keras.Input((4, 3)))
    lstm = tf.keras.layers.LSTM(2, return_sequences=True)
    lstm(masked)
    mask = lstm.get_input_mask_at(0)
    assert mask is masked._keras_mask and tuple(mask.shape) == (None, 4)
    assert lstm.get_output_mask_at(0) is not None


def test_save_and_load_own_variables():
    bn = tf.keras.layers.BatchNormalization()
    bn.build((None, 2))
    bn.trainable = False  # the order stays the declared one: gamma, beta, then the moving ones
    store = {}
    bn.save_own_variables(store)
    assert list(store) == ["0", "1", "2", "3"]
    np.testing.assert_array_equal(store["0"], [1.0, 1.0])
    np.testing.assert_array_equal(store["3"], [1.0, 1.0])

    class Outer(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.inner = tf.keras.layers.Dense(2)
            self.inner.build(input_shape)
            self.w = self.add_weight("w", shape=(1,), trainable=False)
            self.k = self.add_weight("k", shape=(2,))

    outer = Outer()
    outer.build((None, 3))
    store = {}
    outer.save_own_variables(store)  # TF 2.15: {'0': (2,), '1': (1,)}: not the inner layer's
    assert {k: v.shape for k, v in store.items()} == {"0": (2,), "1": (1,)}

    dense = tf.keras.layers.Dense(2)
    dense.build((None, 3))
    dense.load_own_variables({"0": np.full((3, 2), 2.0), "1": np.array([1.0, -1.0])})
    np.testing.assert_array_equal(dense.kernel.numpy(), np.full((3, 2), 2.0))
    np.testing.assert_array_equal(dense.bias.numpy(), [1.0, -1.0])
    with pytest.raises(ValueError, match="expected 2 variables, but received 1 variables during loading"):
        dense.load_own_variables({"0": np.ones((3, 2))})


def test_normalization_and_feature_space_store_hooks():
    norm = tf.keras.layers.Normalization()
    norm.adapt(np.array([[1.0, 2.0], [3.0, 6.0]]))
    store = {}
    norm.save_own_variables(store)
    np.testing.assert_array_equal(store["0"], [2.0, 4.0])
    np.testing.assert_array_equal(store["1"], [1.0, 4.0])
    assert int(store["2"]) == 2
    restored = tf.keras.layers.Normalization()
    restored.build((None, 2))
    restored.load_own_variables(store)
    np.testing.assert_allclose(np.asarray(restored(np.array([[2.0, 4.0]]))), [[0.0, 0.0]])
    space = tf.keras.utils.FeatureSpace(features={"a": "float"})
    store = {}
    space.save_own_variables(store)
    space.load_own_variables(store)
    assert store == {}


def test_with_name_scope_enters_the_layer_name_scope():
    class Scoped(tf.keras.layers.Layer):
        @tf.keras.layers.Layer.with_name_scope
        def make(self):
            return tf.Variable(1.0, name="w")

    assert Scoped(name="lay").make().name == "lay/w:0"
    assert Scoped.make.__name__ == "make"


def test_metric_result_carries_its_metric():
    mean = tf.keras.metrics.Mean(name="m")
    result = mean(torch.tensor([1.0, 3.0]))
    assert result._metric_obj is mean and float(result) == 2.0
