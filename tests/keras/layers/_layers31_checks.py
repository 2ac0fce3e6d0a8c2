"""Shared checks for the layers added in issue 31: `get_config`/`from_config` and `.keras`
round trips, and the symbolic output shape against a real call."""

from __future__ import annotations

import json

import numpy as np
import torch

import torchestimator as tf


def config_round_trip(layer, x):
    """`from_config(get_config())` (through JSON) gives the same config and, with the same
    weights, the same output; returns the output."""
    y = layer(x)
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    clone(x)
    clone.set_weights(layer.get_weights())
    assert clone.get_config() == layer.get_config()
    torch.testing.assert_close(clone(x), y)
    return y


def keras_round_trip(layer, x, tmp_path):
    """A functional model around `layer` predicts the same after `save('m.keras')` and
    `load_model`, and its symbolic output shape is the real one."""
    inp = tf.keras.Input(tuple(x.shape[1:]), dtype=x.dtype if not x.is_floating_point() else None)
    out = layer(inp)
    model = tf.keras.Model(inp, out)
    y = model.predict(x.numpy(), verbose=0)
    assert tuple(out.shape[1:]) == tuple(y.shape[1:])
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert type(loaded.layers[-1]) is type(layer)
    np.testing.assert_allclose(loaded.predict(x.numpy(), verbose=0), y, rtol=1e-6, atol=1e-6)
    return loaded
