"""Estimator paths no other test runs: `Estimator.model_fn`, the global step from
`tf.compat.v1.train.get_or_create_global_step()` assigned inside a model_fn,
`SessionRunContext.original_args`, `CheckpointSaverListener`'s default `after_save`, and the
`SequentialHeadWrapper` properties and `update_metrics` (the head of a sequence RNN)."""

from __future__ import annotations

import numpy as np
import torch

import torchestimator as tf
from torchestimator.estimator.head.sequential_head import SequentialHeadWrapper

_X = np.arange(8, dtype=np.float32).reshape(8, 1)


def _train_input():
    return tf.data.Dataset.from_tensor_slices(({"x": _X}, 2 * _X)).repeat().batch(2)


def _model_fn(features, labels, mode):
    dense = tf.keras.layers.Dense(1)
    pred = dense(features["x"])
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"p": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    step = tf.compat.v1.train.get_or_create_global_step()
    train_op = tf.group(tf.keras.optimizers.SGD(0.01).minimize(loss, var_list=dense.trainable_variables),
                        step.assign(10))
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class _Hook(tf.estimator.SessionRunHook):
    def __init__(self):
        self.original_args = []

    def after_run(self, run_context, run_values):
        self.original_args.append(run_context.original_args)


def test_global_step_assign_in_model_fn_and_bound_model_fn(tmp_path):
    est = tf.estimator.Estimator(_model_fn, str(tmp_path))
    hook = _Hook()
    listener = tf.estimator.CheckpointSaverListener()  # the interface's defaults: no stop
    est.train(_train_input, steps=1, hooks=[hook], saving_listeners=[listener])
    assert est.get_variable_value("global_step") == 10  # the train op's assign is its advance
    assert len(hook.original_args) == 1
    assert isinstance(hook.original_args[0], tf.estimator.SessionRunArgs)
    assert listener.after_save(None, 10) is None
    spec = est.model_fn({"x": tf.constant(_X[:3])}, None, tf.estimator.ModeKeys.PREDICT, est.config)
    assert isinstance(spec, tf.estimator.EstimatorSpec)
    predicted = [p["p"][0] for p in est.predict(
        lambda: tf.data.Dataset.from_tensor_slices({"x": _X[:3]}).batch(3))]
    # the bound model_fn runs with the trained weights
    np.testing.assert_allclose(spec.predictions["p"].numpy().ravel(), predicted, rtol=1e-6)


def test_sequential_head_wrapper_counts_only_unmasked_steps():
    head = tf.estimator.BinaryClassHead(name="h")
    wrapper = SequentialHeadWrapper(head, sequence_length_mask="mask")
    assert wrapper.name == "h" and wrapper.logits_dimension == 1 and wrapper.static_head is head
    assert wrapper.loss_reduction == head.loss_reduction
    logits = torch.tensor([[[1.0], [-2.0], [0.5]], [[0.3], [2.0], [9.0]]])
    labels = torch.tensor([[[1], [0], [1]], [[0], [1], [1]]])
    features = {"mask": torch.tensor([[1, 1, 0], [1, 1, 1]])}
    flat_logits = torch.tensor([[1.0], [-2.0], [0.3], [2.0], [9.0]])
    flat_labels = torch.tensor([[1], [0], [0], [1], [1]])
    got = wrapper.update_metrics(wrapper.metrics(), features, logits, labels)
    want = head.update_metrics(head.metrics(), {}, flat_logits, flat_labels)
    assert set(got) == set(want) and "accuracy/h" in got
    for key in want:
        np.testing.assert_allclose(float(got[key].result()), float(want[key].result()), rtol=1e-6,
                                   err_msg=key)
    np.testing.assert_allclose(float(wrapper.loss(labels, logits, features)),
                               float(head.loss(flat_labels, flat_logits)), rtol=1e-6)
    assert set(wrapper.predictions(logits)) == set(head.predictions(flat_logits))
