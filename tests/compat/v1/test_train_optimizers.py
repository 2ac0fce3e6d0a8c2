"""`tf.compat.v1.train` optimizers: TF1's update rules (against trajectories recorded from TF 2.15
in `fixtures/tf1.json`), slots and their checkpoint names, and TF1's optimizer API."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope
from torchestimator._engine.train_op import TrainOp

v1 = tf.compat.v1

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf1.json"), encoding="utf-8") as _f:
    FIXTURE = json.load(_f)
PROBLEM = FIXTURE["problem"]
OPTIMIZERS = FIXTURE["optimizers"]


def _problem(dtype):
    torch_dtype = getattr(torch, dtype)
    w = tf.Variable(np.array(PROBLEM["w0"]), dtype=torch_dtype)
    m = tf.Variable(np.array(PROBLEM["m0"]), dtype=torch_dtype)
    a, c, d, e = (tf.constant(PROBLEM[k], dtype=torch_dtype) for k in "acde")  # with the variables

    def loss():
        return 0.5 * torch.sum(a * (w - c) ** 2) + 0.25 * torch.sum(e * (m - d) ** 2)

    return w, m, loss


@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
def test_trajectory_matches_tf1(key):
    case = OPTIMIZERS[key]
    w, m, loss = _problem(case["dtype"])
    opt = getattr(v1.train, case["class"])(**case["kwargs"])
    tol = 1e-6
    for step in range(PROBLEM["steps"]):
        opt.minimize(loss, var_list=[w, m])
        np.testing.assert_allclose(w.numpy(), case["w"][step], rtol=tol, atol=tol, err_msg=f"step {step}")
        np.testing.assert_allclose(m.numpy(), case["m"][step], rtol=tol, atol=tol, err_msg=f"step {step}")
    assert opt.get_slot_names() == case["slot_names"]
    for name, values in case["slots"].items():
        np.testing.assert_allclose(opt.get_slot(w, name).numpy(), values["w"], rtol=tol, atol=tol)
        np.testing.assert_allclose(opt.get_slot(m, name).numpy(), values["m"], rtol=tol, atol=tol)
    assert opt.get_slot(w, "no_such_slot") is None


@pytest.mark.parametrize("key", sorted(FIXTURE["slot_variable_names"]))
def test_checkpoint_slot_names_are_tf1s(key):
    case = OPTIMIZERS[key]
    opt = getattr(v1.train, case["class"])(**case["kwargs"])
    assert opt.get_slot_names() == []  # TF1 makes the slots when it first applies gradients
    opt.minimize(lambda: torch.sum(w * w), var_list=[w := tf.Variable([1.0, 2.0, 3.0])])
    expected = FIXTURE["slot_variable_names"][key]  # TF1 slot name -> 'w/<Name>[_n]'
    assert sorted(expected) == opt.get_slot_names()
    for tf1_name, variable_name in expected.items():
        assert "w/" + opt.checkpoint_slot_name(opt._tf1_slots[tf1_name]) == variable_name


def test_rmsprop_mean_square_starts_at_one_and_momentum_slot_always_exists():
    w = tf.Variable([1.0, 2.0])
    opt = v1.train.RMSPropOptimizer(0.1)
    opt.minimize(lambda: torch.sum(w * 0.0), var_list=[w])  # zero gradient: ms decays from 1
    np.testing.assert_allclose(opt.get_slot(w, "rms").numpy(), [0.9, 0.9], rtol=1e-6)
    np.testing.assert_allclose(opt.get_slot(w, "momentum").numpy(), [0.0, 0.0])
    assert opt.get_slot_names() == ["momentum", "rms"]


def test_adagrad_has_no_epsilon():
    w = tf.Variable([3.0])
    opt = v1.train.AdagradOptimizer(0.5, initial_accumulator_value=1e-30)
    opt.minimize(lambda: torch.sum(2.0 * w), var_list=[w])  # g = 2: w -= 0.5 * 2 / sqrt(4)
    np.testing.assert_allclose(w.numpy(), [2.5], rtol=1e-7)
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        v1.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_compute_and_apply_gradients_outside_model_fn():
    w = tf.Variable([1.0, 2.0], name="w")
    unused = tf.Variable([5.0], name="unused")
    step = tf.Variable(0, dtype=tf.int64, trainable=False)
    opt = v1.train.GradientDescentOptimizer(0.1)
    pairs = opt.compute_gradients(lambda: torch.sum(w * w), var_list=[w, unused])
    assert pairs[1] == (None, unused)
    np.testing.assert_allclose(pairs[0][0].numpy(), [2.0, 4.0])
    assert pairs[0][1] is w
    assert opt.apply_gradients(pairs, global_step=step) is None
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)
    np.testing.assert_allclose(unused.numpy(), [5.0])
    assert int(step.numpy()) == 1
    opt.minimize(torch.sum(w * w), global_step=step)  # a tensor loss; var_list from its graph
    np.testing.assert_allclose(w.numpy(), [0.64, 1.28], rtol=1e-6)
    assert int(step.numpy()) == 2
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables to optimize"):
        opt.compute_gradients(torch.sum(w.detach()))
    with pytest.raises(TypeError, match="pairs"):
        opt.apply_gradients([w])


def test_grad_loss_weights_the_gradient():
    w = tf.Variable([1.0, 1.0])
    opt = v1.train.GradientDescentOptimizer(1.0)
    pairs = opt.compute_gradients(lambda: w * 3.0, var_list=[w], grad_loss=torch.tensor([1.0, 2.0]))
    np.testing.assert_allclose(pairs[0][0].numpy(), [3.0, 6.0])


def _in_model_fn(mode, fn):
    scope = ObjectScope()
    scope.context.begin_call(mode, 0)
    with scope, torch.set_grad_enabled(mode == "train"):
        return fn()


def test_apply_gradients_in_model_fn_is_a_deferred_train_op():
    w = tf.Variable([1.0, -1.0])
    opt = v1.train.GradientDescentOptimizer(0.5)

    def model_fn():
        loss = torch.sum(w * w)
        grads_and_vars = opt.compute_gradients(loss, var_list=[w])
        clipped = [(torch.clamp(g, -1.0, 1.0), v) for g, v in grads_and_vars]
        return opt.apply_gradients(clipped, global_step=v1.train.get_global_step())

    op = _in_model_fn("train", model_fn)
    assert isinstance(op, TrainOp)
    np.testing.assert_allclose(w.numpy(), [1.0, -1.0])  # nothing applied yet
    op.run()
    np.testing.assert_allclose(w.numpy(), [0.5, -0.5])  # the clipped gradient, not the loss's
    eval_op = _in_model_fn("eval", model_fn)  # zeros stand in for the gradients; never applied
    if isinstance(eval_op, TrainOp):
        eval_op.run()
    np.testing.assert_allclose(w.numpy(), [0.5, -0.5])


def test_compute_gradients_default_var_list_in_model_fn_is_every_trainable_variable():
    def model_fn():
        a = v1.get_variable("a", shape=[2], initializer=v1.ones_initializer())
        v1.get_variable("b", shape=[3])
        frozen = v1.get_variable("c", shape=[1], trainable=False)
        opt = v1.train.AdamOptimizer()
        return opt.compute_gradients(torch.sum(a * 2.0) + frozen.sum()), a

    pairs, a = _in_model_fn("train", model_fn)
    assert [v.name for _, v in pairs] == ["a:0", "b:0"]
    np.testing.assert_allclose(pairs[0][0].numpy(), [2.0, 2.0])
    assert pairs[1][0] is None


def test_tensor_learning_rate_updates_the_reused_optimizer():
    scope = ObjectScope()
    seen = []
    for rate in (0.1, 0.05):
        with scope:
            opt = v1.train.GradientDescentOptimizer(learning_rate=torch.tensor(rate))
        seen.append((opt, float(opt.learning_rate)))
    assert seen[0][0] is seen[1][0]
    assert seen[0][1] == pytest.approx(0.1) and seen[1][1] == pytest.approx(0.05)


def test_scaffold_and_global_step_are_reexported():
    assert v1.train.get_global_step is tf.train.get_global_step
    assert v1.train.get_or_create_global_step is tf.train.get_or_create_global_step
    try:
        from torchestimator.train._scaffold import Scaffold
    except ImportError:
        pytest.skip("tf.train's Scaffold is not there yet")
    assert v1.train.Scaffold is Scaffold
