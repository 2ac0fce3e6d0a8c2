"""tf.compat.v1.layers' TF1 layer methods: get_losses_for, get_updates_for and TF1's
add_metric(value, aggregation=None, name=None); `Layer` and `Flatten` are the module's own
classes (TF1's layers subclass `tf.compat.v1.layers.Layer`). Expected values follow
TensorFlow 2.15.1's graph-mode layers."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf


def test_get_losses_for_splits_unconditional_and_input_losses():
    dense = tf.compat.v1.layers.Dense(
        2, kernel_regularizer=lambda w: tf.reduce_sum(w) * 0 + 3.0,
        activity_regularizer=lambda y: tf.reduce_sum(y) * 0 + 7.0)
    x = tf.ones((1, 3))
    dense(x)
    # TF 2.15 (graph mode): [kernel/Regularizer] for None, [dense/ActivityRegularizer] for x
    assert [float(v.detach()) for v in dense.get_losses_for(None)] == [3.0]
    assert [float(v.detach()) for v in dense.get_losses_for(x)] == [7.0]
    assert sorted(float(v.detach()) for v in dense.losses) == [3.0, 7.0]


def test_get_updates_for_is_empty_updates_apply_in_place():
    bn = tf.compat.v1.layers.BatchNormalization()
    x = tf.constant(np.arange(6, dtype="float32").reshape(2, 3))
    bn(x, training=True)
    assert bn.get_updates_for(x) == [] and bn.get_updates_for(None) == []
    assert not np.allclose(bn.moving_mean.numpy(), 0.0)  # the update already ran


def test_layer_and_flatten_are_tf1_layer_classes():
    assert isinstance(tf.compat.v1.layers.Dense(2), tf.compat.v1.layers.Layer)
    assert isinstance(tf.compat.v1.layers.MaxPooling2D(2, 2), tf.compat.v1.layers.Layer)
    flatten = tf.compat.v1.layers.Flatten()
    assert isinstance(flatten, tf.compat.v1.layers.Layer)
    assert isinstance(flatten, tf.keras.layers.Flatten)
    assert tuple(flatten(tf.ones((2, 3, 4))).shape) == (2, 12)
    assert not isinstance(tf.keras.layers.Dense(2), tf.compat.v1.layers.Layer)
    config = tf.keras.layers.serialize(flatten)
    assert type(tf.keras.layers.deserialize(config)) is tf.keras.layers.Flatten


def test_tf1_add_metric():
    class Reporting(tf.compat.v1.layers.Layer):
        def __init__(self):
            super().__init__(name="rep")
            self.acc = tf.keras.metrics.Mean(name="m")

        def call(self, inputs):
            self.add_metric(tf.reduce_sum(inputs), aggregation="mean", name="total")
            self.add_metric(self.acc(inputs))
            return inputs

    layer = Reporting()
    layer(tf.ones((2, 2)))
    layer(tf.ones((2, 2)) * 3)
    assert {m.name: float(m.result()) for m in layer.metrics} == {"total": 8.0, "m": 2.0}  # mean(4, 12); mean of all inputs

    class Bad(tf.compat.v1.layers.Layer):
        def call(self, inputs):
            self.add_metric(tf.reduce_sum(inputs), name="x")
            return inputs

    with pytest.raises(ValueError, match="We do not support adding an aggregated metric result"):
        Bad()(tf.ones(2))
    with pytest.raises(ValueError, match="We currently support only `mean` sample-wise metric"):
        Reporting().add_metric(tf.ones(()), aggregation="sum", name="y")


def test_tf1_apply_calls_the_layer_and_torch_apply_still_visits_submodules():
    layer = tf.compat.v1.layers.Dense(2, kernel_initializer="ones")
    out = layer.apply(np.ones((1, 3), np.float32))  # TF 2.15.1 printed [[3. 3.]]
    np.testing.assert_array_equal(out.numpy(), [[3.0, 3.0]])
    visited = []
    assert layer.apply(visited.append) is layer  # torch's Module.apply(fn)
    assert visited and visited[-1] is layer
