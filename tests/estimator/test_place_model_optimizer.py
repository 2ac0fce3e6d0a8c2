"""Issue 28: an Estimator trained on one device, then under `tf.device` on another, moves the
model's weights AND its optimizers' slots there in place (`ModelRuntime.place_model`), before
model_fn runs on the new device's batches; training goes on with the same Parameter objects.
The second device is the lazy backend's (`tests/_harness/device_leaks.py`), the stand-in for a
GPU on a CPU-only machine."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import assert_on_device, available, on_leak_device

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

_X = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
_Y = (_X[:, :1] > 0).astype(np.float32)
CPU = torch.device("cpu")


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": _X}, _Y)).repeat().batch(8)


def _model_fn(features, labels, mode):
    hidden = tf.keras.layers.Dense(4, activation="relu", name="hidden")
    logits_layer = tf.keras.layers.Dense(1, name="logits")
    logits = logits_layer(hidden(features["x"]))
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(labels, logits, from_logits=True))
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    optimizer = tf.keras.optimizers.Adam(0.01)  # Adam: slots (m, v) per weight
    train_op = optimizer.minimize(loss, var_list=hidden.trainable_weights + logits_layer.trainable_weights)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _slots(optimizer) -> list[torch.Tensor]:
    return [value for state in optimizer._kernel.state.values() for value in state.values()
            if isinstance(value, torch.Tensor) and value.is_floating_point()]


@pytest.mark.parametrize("order", ["device_then_cpu", "cpu_then_device"])
def test_slots_move_with_the_weights_and_training_goes_on(tmp_path, order):
    with on_leak_device() as device:
        # '/GPU:0' on a machine without CUDA is the accelerator TORCHESTIMATOR_DEVICE names
        if order == "device_then_cpu":
            first_scope, first_device, second_scope, second_device = None, device, "/CPU:0", CPU
        else:
            first_scope, first_device, second_scope, second_device = "/CPU:0", CPU, "/GPU:0", device
        est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
        with tf.device(first_scope) if first_scope else contextlib.nullcontext():
            est.train(_input_fn, steps=1)
        (optimizer,) = est._state.optimizers()
        weights = list(optimizer._vars)
        slots = _slots(optimizer)
        assert len(weights) == 4 and len(slots) == 8
        assert all(w.device == first_device for w in weights)
        assert all(s.device == first_device for s in slots)
        before = [w.detach().cpu().clone() for w in weights]
        slots_before = [s.detach().cpu().clone() for s in slots]

        with tf.device(second_scope):
            est.train(_input_fn, steps=2)
            assert_on_device(dict(est._state.named_variables()), second_device, "variables")
            assert_on_device(optimizer, second_device, "optimizer")  # the slots moved with them
            loss = est.evaluate(_input_fn, steps=1)["loss"]

        # the same Parameter and slot objects, trained further on the new device
        assert est._state.optimizers() == [optimizer]
        assert all(a is b for a, b in zip(optimizer._vars, weights)) and len(optimizer._vars) == 4
        layer_weights = [p for layer in est._state.layers() for p in layer.parameters()]
        assert {id(p) for p in layer_weights} == {id(w) for w in weights}
        assert all(not torch.equal(b, w.detach().cpu()) for b, w in zip(before, weights))
        assert all(not torch.equal(b, s.detach().cpu()) for b, s in zip(slots_before, _slots(optimizer)))
        assert int(est.get_variable_value("global_step")) == 3
        assert np.isfinite(loss)


def test_place_model_moves_the_slots_in_place_with_their_values(tmp_path):
    with on_leak_device() as device:
        est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
        est.train(_input_fn, steps=2)
        runtime = est._runtime
        (optimizer,) = est._state.optimizers()
        weights, slots = list(optimizer._vars), _slots(optimizer)
        values = [t.detach().cpu().clone() for t in weights + slots]
        assert all(t.device == device for t in weights + slots)
        runtime.device = CPU
        runtime.place_model()
        assert all(a is b for a, b in zip(optimizer._vars, weights))
        assert all(a is b for a, b in zip(_slots(optimizer), slots))  # the same slot objects
        assert all(t.device == CPU for t in weights + slots)
        assert all(torch.equal(v, t.detach()) for v, t in zip(values, weights + slots))
        runtime.device = device
        runtime.place_model()
        assert_on_device(optimizer, device, "optimizer")
        assert all(torch.equal(v, t.detach().cpu()) for v, t in zip(values, weights + slots))
