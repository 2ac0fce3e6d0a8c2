"""`tf.compat.v1.layers`' classes take TF1's arguments and defaults, as TF 2.15's: no `groups`
/ `output_padding`, `data_format='channels_last'`, initializers None (the variable scope's at
build, else glorot-uniform), `Dropout(rate=0.5)` and `training=False` when `Dropout` and
`BatchNormalization` are called. Expected values were printed by TF 2.15.1."""

import inspect

import numpy as np
import pytest

import torchestimator as tf

L = tf.compat.v1.layers
v1 = tf.compat.v1


def test_conv_positional_arguments_bind_as_tf1():
    conv = L.Conv2D(2, 1, 1, "valid", "channels_last", 1, "relu")  # position 6: activation
    assert conv.activation is tf.keras.activations.relu
    params = list(inspect.signature(L.Conv2DTranspose.__init__).parameters)
    assert params[5] == "data_format" and "output_padding" not in params
    assert issubclass(L.Conv2D, tf.keras.layers.Conv2D)


def test_kernel_initializer_none_is_the_scope_initializer_at_build():
    v1.reset_default_graph()
    try:
        x = tf.ones((2, 4))
        dense = L.Dense(3)
        penalty = lambda w: tf.reduce_sum(w)  # noqa: E731
        with v1.variable_scope("s", initializer=v1.constant_initializer(0.5), regularizer=penalty):
            dense(x)  # built here: the scope's initializer and regularizer
            made_inside = L.Dense(3)
        made_inside(x)  # built outside any scope: glorot-uniform, no regularizer
        assert np.allclose(dense.kernel.numpy(), 0.5) and np.allclose(dense.bias.numpy(), 0.0)
        assert len(dense.losses) == 2 and len(made_inside.losses) == 0  # TF 2.15.1: 2 and 0
        assert not np.allclose(made_inside.kernel.numpy(), 0.5)
        assert L.Dense(3).get_config()["kernel_initializer"]["class_name"] == "GlorotUniform"
    finally:
        v1.reset_default_graph()


def test_pooling_is_channels_last_whatever_the_image_data_format():
    tf.keras.backend.set_image_data_format("channels_first")
    try:
        pool = L.MaxPooling2D(2, 2)
        assert pool.data_format == "channels_last"
        assert tuple(pool(tf.ones((1, 4, 4, 3))).shape) == (1, 2, 2, 3)  # TF 2.15.1
    finally:
        tf.keras.backend.set_image_data_format("channels_last")


def test_dropout_and_batch_normalization_default_to_inference():
    dropout = L.Dropout()
    assert dropout.rate == 0.5
    assert dropout(tf.ones((1, 4))).numpy().tolist() == [[1.0, 1.0, 1.0, 1.0]]
    assert set(dropout(tf.ones((1, 64)), training=True).numpy().ravel().tolist()) <= {0.0, 2.0}
    out = L.BatchNormalization()(tf.ones((2, 3)) * 3)
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), 2.9985013), rtol=1e-6)  # TF 2.15.1


def test_configs_load_as_the_keras_layers():
    config = tf.keras.layers.serialize(L.Dense(3))
    assert type(tf.keras.layers.deserialize(config)) is tf.keras.layers.Dense


def test_unsupported_batch_normalization_arguments_raise():
    with pytest.raises(ValueError, match="renorm"):
        L.BatchNormalization(renorm=True)
