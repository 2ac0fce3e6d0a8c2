"""Graph walks over deep functional models (thousands of layers) stay under Python's
recursion limit: construction, predict, clone_model and .keras save/load."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.keras.engine.functional import _topological_nodes

DEPTH = 3000


@pytest.fixture(scope="module")
def deep_model():
    tf.keras.backend.clear_session()
    inputs = tf.keras.Input((3,))
    x = inputs
    for _ in range(DEPTH):
        x = tf.keras.layers.Activation("linear")(x)
    return tf.keras.Model(inputs, x)


def test_recursion_limit_is_the_default():
    # The deep graphs below are deeper than the limit; nothing may raise it to get through.
    assert sys.getrecursionlimit() < DEPTH


def test_build_and_predict(deep_model):
    assert len(deep_model.layers) == DEPTH + 1
    data = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(deep_model.predict(data, verbose=0), data)
    nodes = _topological_nodes(deep_model.inputs, deep_model.outputs)
    assert len(nodes) == DEPTH
    assert nodes[0].layer is deep_model.layers[1] and nodes[-1].layer is deep_model.layers[-1]


def test_clone_model(deep_model):
    clone = tf.keras.models.clone_model(deep_model)
    assert len(clone.layers) == DEPTH + 1
    data = np.ones((1, 3), "float32")
    np.testing.assert_allclose(clone.predict(data, verbose=0), data)


def test_keras_file_round_trip(deep_model, tmp_path):
    path = str(tmp_path / "deep.keras")
    deep_model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in deep_model.layers]
    data = np.full((2, 3), 2.0, "float32")
    np.testing.assert_allclose(loaded.predict(data, verbose=0), data)


def test_deep_dense_add_chain():
    tf.keras.backend.clear_session()
    inputs = tf.keras.Input((2,))
    x = inputs
    for _ in range(1000):  # 2,000 Dense/Add layers
        x = tf.keras.layers.Add()([x, tf.keras.layers.Dense(2, kernel_initializer="zeros")(x)])
    model = tf.keras.Model(inputs, x)
    assert len(model.layers) == 2001
    data = np.array([[1.0, -1.0]], "float32")
    np.testing.assert_allclose(model.predict(data, verbose=0), data)


def test_cycle_free_diamonds_walk_each_node_once():
    tf.keras.backend.clear_session()
    inputs = tf.keras.Input((2,))
    x = inputs
    for _ in range(40):  # a recursive walk without memo would take 2**40 steps
        x = tf.keras.layers.Add()([tf.keras.layers.Activation("linear")(x),
                                   tf.keras.layers.Activation("linear")(x)])
    model = tf.keras.Model(inputs, x)
    assert len(_topological_nodes(model.inputs, model.outputs)) == 120


def test_deep_sequential_builds_once():
    # Built once for the whole list: a rebuild per added layer took ~15 minutes at this depth.
    layers = [tf.keras.Input((3,))] + [tf.keras.layers.Activation("linear") for _ in range(DEPTH)]
    model = tf.keras.Sequential(layers)
    assert len(model.layers) == DEPTH
    assert all(len(layer._inbound_nodes) == 1 for layer in model.layers)
    data = np.ones((1, 3), "float32")
    np.testing.assert_allclose(model.predict(data, verbose=0), data)
