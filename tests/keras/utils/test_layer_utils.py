"""`tf.keras.utils.get_source_inputs` on functional graphs."""

from __future__ import annotations

import torch

import torchestimator as tf


def test_source_inputs_of_a_graph():
    a = tf.keras.Input(shape=(3,))
    b = tf.keras.Input(shape=(3,))
    dense = tf.keras.layers.Dense(3)
    h = tf.keras.layers.Add()([dense(a), dense(b)])
    out = tf.keras.layers.Dense(1)(tf.keras.layers.Concatenate()([h, a]))
    sources = tf.keras.utils.get_source_inputs(out)
    assert len(sources) == 2 and sources[0] is a and sources[1] is b
    assert tf.keras.utils.get_source_inputs(a) == [a]


def test_non_symbolic_tensor_is_returned_as_is():
    t = torch.ones(2)
    assert tf.keras.utils.get_source_inputs(t) is t
