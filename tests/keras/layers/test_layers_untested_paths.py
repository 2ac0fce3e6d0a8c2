"""Keras layer paths no other test runs: `Bidirectional.reset_states` / `states` / `layer`,
`StackedRNNCells.get_initial_state`, `MultiHeadAttention.get_build_config` /
`build_from_config`, and the config round trips of the RNN cell wrappers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

keras = tf.keras


def _x(*shape):
    return np.random.RandomState(0).randn(*shape).astype("float32")


def test_bidirectional_stateful_states_and_reset_states():
    x = _x(2, 3, 4)
    bi = keras.layers.Bidirectional(keras.layers.LSTM(5, stateful=True), batch_input_shape=(2, 3, 4))
    assert isinstance(bi.layer, keras.layers.LSTM)
    assert bi.states == [None, None, None, None]  # not called yet
    first = bi(x).numpy()
    states = bi.states
    assert len(states) == 4 and all(tuple(s.shape) == (2, 5) for s in states)
    assert not np.allclose(bi(x).numpy(), first)  # the states carried over
    bi.reset_states()
    assert all(float(np.abs(s.numpy()).sum()) == 0.0 for s in bi.states)
    np.testing.assert_allclose(bi(x).numpy(), first, atol=1e-6)
    # explicit states: the first half goes to the forward layer
    values = [np.full((2, 5), v, "float32") for v in (0.1, 0.2, 0.3, 0.4)]
    bi.reset_states(values)
    np.testing.assert_allclose([float(s.numpy().mean()) for s in bi.states], [0.1, 0.2, 0.3, 0.4],
                               rtol=1e-6)
    bi.reset_states([np.zeros((2, 5), "float32")] * 4)
    np.testing.assert_allclose(bi(x).numpy(), first, atol=1e-6)


def test_bidirectional_reset_states_needs_a_stateful_layer():
    with pytest.raises(AttributeError, match="stateful"):
        keras.layers.Bidirectional(keras.layers.LSTM(5)).reset_states()


def test_stacked_rnn_cells_get_initial_state():
    cells = keras.layers.StackedRNNCells([keras.layers.LSTMCell(3), keras.layers.GRUCell(4)])
    init = cells.get_initial_state(batch_size=2, dtype="float32")  # a dtype name, as Keras takes
    assert [tuple(s.shape) for s in init] == [(2, 3), (2, 3), (2, 4)]
    assert all(s.dtype == torch.float32 and not s.any() for s in init)
    init64 = cells.get_initial_state(inputs=tf.constant(_x(5, 4), dtype=tf.float64))
    assert [tuple(s.shape) for s in init64] == [(5, 3), (5, 3), (5, 4)]
    assert all(s.dtype == torch.float64 for s in init64)
    with pytest.raises(ValueError, match="batch_size"):
        cells.get_initial_state()


def test_multi_head_attention_build_config_round_trip():
    q, v = _x(2, 3, 4), _x(2, 5, 4) + 1
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    assert mha.get_build_config() is None
    out = mha(q, v).numpy()
    config = mha.get_build_config()
    assert config == {"query_shape": [2, 3, 4], "value_shape": [2, 5, 4], "key_shape": [2, 5, 4]}
    clone = keras.layers.MultiHeadAttention.from_config(mha.get_config())
    clone.build_from_config(config)
    assert clone.built and len(clone.weights) == len(mha.weights)
    clone.set_weights(mha.get_weights())
    np.testing.assert_allclose(clone(q, v).numpy(), out, atol=1e-6)


def test_rnn_cell_wrappers_config_round_trip():
    dropout = tf.nn.RNNCellDropoutWrapper(keras.layers.LSTMCell(3), input_keep_prob=0.5,
                                          output_keep_prob=0.7, seed=1)
    config = dropout.get_config()
    assert config["input_keep_prob"] == 0.5 and config["output_keep_prob"] == 0.7
    assert config["seed"] == 1 and config["cell"]["class_name"] == "LSTMCell"
    assert tf.nn.RNNCellDropoutWrapper.from_config(config).get_config() == config
    device = tf.nn.RNNCellDeviceWrapper(keras.layers.GRUCell(3), "/cpu:0")
    config = device.get_config()
    assert config["device"] == "/cpu:0" and config["cell"]["config"]["units"] == 3
    assert tf.nn.RNNCellDeviceWrapper.from_config(config).get_config() == config
