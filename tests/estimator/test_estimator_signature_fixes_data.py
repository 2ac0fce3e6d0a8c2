"""tf.estimator signatures as TF 2.15's: `Head.update_metrics(eval_metrics, features, logits,
labels, mode=None, regularization_losses=None)` (the concrete heads take no `mode`, as TF's),
`SummarySaverHook.end(session=None)`, and compat.v1's
`DNNLinearCombinedEstimator(..., config, batch_norm, linear_sparse_combiner)`."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.estimator.head import BinaryClassHead, RegressionHead

LOGITS = torch.tensor([[45.0], [-41.0]])
LABELS = np.array([[1], [1]], dtype=np.int32)


def test_base_head_update_metrics_takes_mode_before_regularization_losses():
    params = list(inspect.signature(tf.estimator.Head.update_metrics).parameters)
    assert params == ["self", "eval_metrics", "features", "logits", "labels", "mode", "regularization_losses"]
    head = BinaryClassHead()
    reg = [torch.tensor(2.0)]
    metrics = tf.estimator.Head.update_metrics(head, head.metrics(reg), {}, LOGITS, LABELS,
                                               tf.estimator.ModeKeys.EVAL, reg)
    assert float(metrics["regularization_loss"].result()) == pytest.approx(2.0)
    assert float(metrics["average_loss"].result()) == pytest.approx(20.5)  # TF's docstring example


@pytest.mark.parametrize("make", [BinaryClassHead, RegressionHead])
def test_concrete_heads_take_regularization_losses_fifth(make):
    params = list(inspect.signature(make.update_metrics).parameters)
    assert params == ["self", "eval_metrics", "features", "logits", "labels", "regularization_losses"]
    head = make()
    reg = [torch.tensor(3.0)]
    metrics = head.update_metrics(head.metrics(reg), {}, LOGITS, LABELS.astype(np.float32), reg)
    assert float(metrics["regularization_loss"].result()) == pytest.approx(3.0)


def test_summary_saver_hook_end_needs_no_session(tmp_path):
    class Writer:
        flushed = 0

        def flush(self):
            Writer.flushed += 1

    hook = tf.estimator.SummarySaverHook(save_steps=1, summary_writer=Writer())
    hook.end()
    hook.end(session=None)
    assert Writer.flushed == 2
    tf.compat.v1.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path)).end()  # no writer yet


def test_v1_dnn_linear_combined_estimator_takes_batch_norm_before_linear_sparse_combiner(tmp_path):
    x = np.linspace(-1.0, 1.0, 32, dtype=np.float32)
    columns = [tf.feature_column.numeric_column("x")]

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(8)

    est = tf.compat.v1.estimator.DNNLinearCombinedEstimator(
        tf.estimator.RegressionHead(), str(tmp_path), None, "Ftrl", columns, "Adagrad", [4],
        tf.nn.relu, None, None, None, True, "sum")
    est.train(input_fn, steps=2)
    names = est.get_variable_names()
    assert any("batchnorm" in name and name.endswith("moving_mean") for name in names), names
    with pytest.raises(ValueError):
        tf.compat.v1.estimator.DNNLinearCombinedEstimator(
            tf.estimator.RegressionHead(), None, None, "Ftrl", columns, "Adagrad", [4],
            tf.nn.relu, None, None, None, False, "bogus")
