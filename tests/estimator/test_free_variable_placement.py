"""Issue 28: a custom model_fn's variables made outside any layer (`tf.Variable`,
`tf.compat.v1.get_variable`) follow the Estimator to the device of a later call, as its layers'
weights and the optimizer's slots do: trained on the CPU, then evaluated and trained again with
a second device (`lazy:0`, tests/_harness/device_leaks.py) as the default one."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import assert_on_device, available, on_leak_device

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

_X = np.random.default_rng(3).normal(size=(32, 3)).astype(np.float32)
_Y = (_X.sum(1, keepdims=True) > 0).astype(np.float32)


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": _X}, _Y)).repeat().batch(32)


def _model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", shape=[3, 1], initializer=tf.compat.v1.zeros_initializer())
    b = tf.Variable(tf.zeros([1]), name="b")
    logits = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    optimizer = tf.compat.v1.train.AdamOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _free_variables(est) -> dict:
    return dict(est._state.free_variables())


def test_free_variables_and_their_slots_follow_a_later_call_to_another_device(tmp_path):
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(tf_random_seed=1))
    with tf.device("/CPU:0"):  # first on the host (on a GPU machine the default is the GPU)
        est.train(_input_fn, steps=5)
        before = _free_variables(est)
        assert set(before) == {"w", "b"}
        assert all(v.device.type == "cpu" for v in before.values())
        loss_on_cpu = est.evaluate(_input_fn, steps=1)["loss"]

    with on_leak_device() as device:
        loss_there = est.evaluate(_input_fn, steps=1)["loss"]
        after = _free_variables(est)
        assert {k: id(v) for k, v in after.items()} == {k: id(v) for k, v in before.items()}
        assert_on_device(after, device, "free variables")
        est.train(_input_fn, steps=20)  # the slots of `w` and `b` move with them
        assert_on_device(_free_variables(est), device, "free variables after training")
        for i, optimizer in enumerate(est._state.optimizers()):
            assert_on_device(optimizer, device, f"optimizer{i}")
        loss_after = est.evaluate(_input_fn, steps=1)["loss"]

    assert float(loss_there) == pytest.approx(float(loss_on_cpu), rel=1e-5)
    assert float(loss_after) < float(loss_there)
    assert int(est.get_variable_value("global_step")) == 25
    # the checkpoint holds the trained values, read back on the host
    assert isinstance(est.get_variable_value("w"), np.ndarray)
    assert not np.allclose(est.get_variable_value("w"), 0.0)


def test_a_restored_free_variable_lands_on_the_device_of_the_variable(tmp_path):
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(tf_random_seed=1))
    est.train(_input_fn, steps=5)
    trained = est.get_variable_value("w")
    with on_leak_device() as device:
        fresh = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
        predictions = next(iter(fresh.predict(_input_fn)))
        assert_on_device(_free_variables(fresh), device, "restored free variables")
        w = _free_variables(fresh)["w"]
        np.testing.assert_allclose(w.detach().to("cpu").numpy(), trained, rtol=1e-6)
    assert predictions["logits"].shape == (1,)
    assert isinstance(torch.as_tensor(predictions["logits"]), torch.Tensor)
