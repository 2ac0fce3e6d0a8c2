"""tf.nn.RNNCell*Wrapper methods of TF's Keras 2 layers: zero_state (the wrapped TF1 cell's),
and the deprecated get_losses_for / get_updates_for / add_update(inputs=). Expected values
were printed with TensorFlow 2.15.1."""

from __future__ import annotations

import logging

import pytest
import torch

import torchestimator as tf


def test_zero_state_is_the_wrapped_cells():
    lstm = tf.nn.RNNCellDropoutWrapper(tf.compat.v1.nn.rnn_cell.LSTMCell(3))
    state = lstm.zero_state(2, tf.float32)
    assert type(state).__name__ == "LSTMStateTuple"
    assert tuple(state.c.shape) == (2, 3) and float(state.h.abs().sum()) == 0.0
    concat = tf.nn.RNNCellResidualWrapper(tf.compat.v1.nn.rnn_cell.LSTMCell(3, state_is_tuple=False))
    assert tuple(concat.zero_state(1, tf.float32).shape) == (1, 6)
    device = tf.nn.RNNCellDeviceWrapper(tf.compat.v1.nn.rnn_cell.BasicRNNCell(3), "/cpu:0")
    zeros = device.zero_state(1, tf.float64)
    assert zeros.dtype == torch.float64 and zeros.device.type == "cpu" and tuple(zeros.shape) == (1, 3)
    keras_cell = tf.nn.RNNCellDropoutWrapper(tf.keras.layers.LSTMCell(3))
    with pytest.raises(AttributeError, match="zero_state"):  # TF 2.15 too: a Keras cell has none
        keras_cell.zero_state(2, tf.float32)


def test_deprecated_losses_and_updates_for(caplog):
    cell = tf.nn.RNNCellDropoutWrapper(tf.keras.layers.LSTMCell(3))
    with pytest.warns(UserWarning, match="`layer.get_losses_for` is deprecated"):
        assert cell.get_losses_for(None) == []
    with pytest.warns(UserWarning, match="`layer.get_updates_for` is deprecated"):
        assert cell.get_updates_for(None) == []
    calls = []
    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        cell.add_update(lambda: calls.append(1), inputs=torch.ones(1))
    assert calls == [1] and "`add_update` `inputs` kwarg has been deprecated" in caplog.text
