"""Issue 28: `with tf.device(...): model.fit(...)` after a fit elsewhere runs on the scoped
device (Keras' Trainer read the device of its first call and kept it). The second device is
the lazy backend's (`tests/_harness/device_leaks.py`), the default device of these tests."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import assert_on_device, available, on_leak_device

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

_X = np.random.default_rng(0).normal(size=(32, 3)).astype(np.float32)
_Y = (_X[:, :1] > 0).astype(np.float32)
CPU = torch.device("cpu")


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.Adam(0.01), tf.keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def test_fit_under_tf_device_after_a_fit_on_the_default_device():
    with on_leak_device() as device:
        model = _model()
        model.fit(_X, _Y, batch_size=8, epochs=1, verbose=0)
        assert_on_device(model, device, "model")
        before = [w.detach().cpu().clone() for w in model.trainable_weights]
        with tf.device("/CPU:0"):
            history = model.fit(_X, _Y, batch_size=8, epochs=2, verbose=0)
            assert_on_device(model, CPU, "model")  # the weights moved to the scoped device
            assert_on_device(model.optimizer, CPU, "optimizer")  # with their slots
            # the optimizer trains the moved weights (not copies it kept), none added twice
            assert len(model.optimizer._vars) == len(model.trainable_weights)
            assert all(v is w for v, w in zip(model.optimizer._vars, model.trainable_weights))
            assert all(not torch.equal(b, w.detach()) for b, w in zip(before, model.trainable_weights))
            loss, _ = model.evaluate(_X, _Y, verbose=0)
            out = model.predict(_X[:4], verbose=0)
        assert np.isfinite(history.history["loss"]).all() and np.isfinite(loss)
        assert out.shape == (4, 1)
        # without a scope the next fit is back on the device the first one chose
        model.fit(_X, _Y, batch_size=8, epochs=1, verbose=0)
        assert_on_device(model, device, "model")


def test_fit_under_tf_device_gpu_after_a_fit_on_the_cpu():
    with on_leak_device() as device:
        with tf.device("/CPU:0"):
            model = _model()
            model.fit(_X, _Y, batch_size=8, epochs=1, verbose=0)
        assert_on_device(model, CPU, "model")
        with tf.device("/GPU:0"):  # no CUDA here: the accelerator TORCHESTIMATOR_DEVICE names
            # shuffled: the permutation indexes the host arrays, so it is drawn on the host
            # (tf.device sets torch's default device)
            model.fit(_X, _Y, batch_size=8, epochs=1, verbose=0, shuffle=True)
        assert_on_device(model, device, "model")
        assert_on_device(model.optimizer, device, "optimizer")


def test_a_torch_optimizer_moves_with_the_model():
    with on_leak_device() as device:
        model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
        model.build((None, 3))
        model.compile(torch.optim.Adam(model.parameters(), lr=0.01), "mse")
        model.fit(_X, _Y, batch_size=8, epochs=1, verbose=0)
        state = model.optimizer.optimizer.state
        assert all(s["exp_avg"].device == device for s in state.values())
        with tf.device("/CPU:0"):
            history = model.fit(_X, _Y, batch_size=8, epochs=2, verbose=0)
        assert_on_device(model, CPU, "model")
        assert all(s["exp_avg"].device == CPU and s["exp_avg_sq"].device == CPU for s in state.values())
        assert set(map(id, state)) == set(map(id, model.parameters()))  # the same parameters
        assert history.history["loss"][-1] < history.history["loss"][0]
