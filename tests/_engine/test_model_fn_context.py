"""ModelFnContext: what the running model_fn call is (mode, global step, summaries, ...)."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.model_fn_context import (
    ModelFnContext,
    current_context,
    current_mode,
    in_model_fn,
)
from torchestimator._engine.object_scope import ObjectScope
from torchestimator._engine.train_op import TrainOp
from torchestimator.train._global_step import advance


def test_a_new_context_is_outside_a_model_fn():
    context = ModelFnContext()
    assert context.mode is None and context.global_step is None
    assert not context.in_model_fn and not context.is_training
    assert context.summaries == {} and context.canned_optimizers == {}
    assert context.global_step_variable is None and context.global_step_updates is None
    assert context.variable_store is None
    assert ModelFnContext().summaries is not context.summaries  # no shared defaults


def test_begin_call_sets_mode_and_step_and_resets_the_per_call_state():
    context = ModelFnContext()
    context.begin_call("train", 7)
    assert (context.mode, context.global_step) == ("train", 7)
    assert context.in_model_fn and context.is_training
    context.summaries["loss"] = 1.0
    context.record_global_step_update("assign_add", 2)
    context.record_global_step_update("assign", 10)
    assert context.global_step_updates == [("assign_add", 2), ("assign", 10)]
    context.canned_optimizers["dnn"] = marker = object()
    old_summaries = context.summaries
    context.begin_call("eval", 9)
    assert (context.mode, context.global_step) == ("eval", 9)
    assert context.in_model_fn and not context.is_training
    assert context.summaries == {} and old_summaries == {"loss": 1.0}  # a fresh dict
    assert context.global_step_updates is None
    assert context.canned_optimizers == {"dnn": marker}  # kept across calls


def test_accessors_follow_the_active_scope():
    assert current_context() is None and current_mode() is None
    assert not in_model_fn() and not in_model_fn("train")
    plain = ObjectScope()
    with plain:  # an ObjectScope no Estimator started: objects reused, no model_fn mode
        assert current_context() is plain.context
        assert current_mode() is None and not in_model_fn()
    scope = ObjectScope()
    scope.context.begin_call("infer", 3)
    with scope:
        assert current_context() is scope.context
        assert current_mode() == "infer"
        assert in_model_fn() and in_model_fn("infer") and not in_model_fn("train")
        with plain:
            assert current_mode() is None
        assert current_mode() == "infer"
    assert current_context() is None


def test_optimizers_defer_only_inside_a_model_fn():
    w = tf.Variable([1.0])
    opt = tf.keras.optimizers.SGD(1.0)
    with ObjectScope():
        opt.minimize(lambda: tf.reduce_sum(w * 2.0), var_list=[w])  # updates at once
    np.testing.assert_allclose(w.numpy(), [-1.0])
    scope = ObjectScope()
    scope.context.begin_call("train", 0)
    with scope:
        op = opt.minimize(tf.reduce_sum(w * 2.0), var_list=[w])
        assert isinstance(op, TrainOp) and np.allclose(w.numpy(), [-1.0])
    scope.context.begin_call("eval", 0)
    with scope:
        op = opt.apply_gradients([(torch.ones(1), w)])
        assert isinstance(op, TrainOp) and op.entries == []  # a NoOp: never run in EVAL


def test_global_step_inside_a_model_fn():
    assert tf.compat.v1.train.get_global_step() is None
    scope = ObjectScope()
    scope.context.begin_call("train", 5)
    with scope:
        step = tf.compat.v1.train.get_global_step()
        assert int(step) == 5 and step is scope.context.global_step_variable
        step.assign_add(2)  # deferred to the train op
        step.assign_sub(1)
        assert int(step) == 5
    assert scope.context.global_step_updates == [("assign_add", 2), ("assign_sub", 1)]
    assert advance(5, scope.context.global_step_updates) == 6
    scope.context.begin_call("train", 6)
    with scope:
        assert tf.compat.v1.train.get_global_step() is step and int(step) == 6
    assert scope.context.global_step_updates is None
    assert advance(6, None) == 7


def test_an_estimator_starts_every_model_fn_call(tmp_path):
    seen = []

    def model_fn(features, labels, mode):
        context = current_context()
        seen.append((mode, current_mode(), context.global_step, dict(context.summaries)))
        tf.summary.scalar("calls", float(len(seen)))
        logits = tf.keras.layers.Dense(1)(features["x"])
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.reduce_mean((logits - labels) ** 2)
        train_op = tf.keras.optimizers.SGD(0.01).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    x = np.ones((4, 2), np.float32)
    y = np.zeros((4, 1), np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(2)

    config = tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None)
    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config)
    estimator.train(input_fn, steps=2)
    train_calls = [s for s in seen if s[0] == "train"]
    assert [s[1] for s in train_calls] == ["train"] * len(train_calls)
    assert [s[2] for s in train_calls][-2:] == [0, 1]  # the step count as each call began
    assert all(s[3] == {} for s in seen)  # summaries start empty in every call
    assert estimator.get_variable_value("global_step") == 2
    seen.clear()
    estimator.evaluate(input_fn, steps=1)
    assert {s[1] for s in seen} == {"eval"} and {s[2] for s in seen} == {2}
    seen.clear()
    list(estimator.predict(input_fn))
    assert {s[1] for s in seen} == {"infer"}
    assert current_context() is None


@pytest.mark.parametrize("mode", ["train", "eval", "infer"])
def test_tf1_variable_store_lives_in_the_context(mode):
    scope = ObjectScope()
    scope.context.begin_call(mode, 0)
    with scope:
        v = tf.compat.v1.get_variable("v", shape=[2], initializer=tf.compat.v1.zeros_initializer())
    store = scope.context.variable_store
    assert store is not None
    scope.context.begin_call(mode, 0)
    with scope:
        assert tf.compat.v1.get_variable("v", shape=[2]) is v
    assert scope.context.variable_store is store
