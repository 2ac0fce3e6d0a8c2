"""An unbuilt Sequential called on a symbolic tensor is one layer of the functional model
built on it (Keras' deferred build), not its layers inlined."""

from __future__ import annotations

import numpy as np

import torchestimator as tf

L = tf.keras.layers


def test_an_unbuilt_sequential_is_one_layer_of_the_model():
    block = tf.keras.Sequential([L.Dense(4), L.Dense(2)], name="block")
    inputs = tf.keras.Input((3,))
    model = tf.keras.Model(inputs, block(inputs))
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Sequential"]  # as TF 2.15
    assert model.count_params() == 3 * 4 + 4 + 4 * 2 + 2
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(model.predict(x, verbose=0), block(x).detach().numpy(), rtol=1e-6)


def test_an_integer_input_keeps_its_dtype_through_the_block():
    block = tf.keras.Sequential([L.Embedding(10, 3), L.GlobalAveragePooling1D()])
    inputs = tf.keras.Input((5,), dtype="int64")
    model = tf.keras.Model(inputs, block(inputs))
    assert model.predict(np.zeros((2, 5), np.int64), verbose=0).shape == (2, 3)


def test_conv_groups_zero_means_one_as_keras():
    assert L.Conv2D(4, 3, groups=0).groups == 1


def test_a_model_as_first_layer_gives_the_sequential_its_input():
    # Keras' get_input_shape_and_dtype: the Sequential is built at once, so model_to_estimator
    # and get_weights see every weight (the guide's `Sequential([mobilenet_base, ...])`)
    base = tf.keras.Model(*(lambda i: (i, L.Dense(3)(i)))(tf.keras.Input((4,))))
    model = tf.keras.Sequential([base, L.Dense(1)])
    assert model.built and model.input_shape == (None, 4) and len(model.get_weights()) == 4
    ids = tf.keras.Sequential([tf.keras.Sequential([L.Embedding(10, 3, input_length=4)]), L.GlobalAveragePooling1D()])
    assert ids.built and ids.input_shape == (None, 4) and ids.inputs[0].dtype == tf.int64
