"""A NaN loss or metric never reads as 0: NaN in, NaN out, in metrics, losses, heads, the
training loop's reports, Estimator evaluation and summaries (issue: reliability, defect 1).

Keras returns 0 only where nothing was counted (`divide_no_nan`); a NaN total stays NaN.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import torchestimator as tf
from torchestimator._engine.summary import histogram_buckets

NAN = float("nan")
RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 3)).astype(np.float32)
Y = X.sum(axis=1, keepdims=True).astype(np.float32)


def _y_with_one_nan() -> np.ndarray:
    y = Y.copy()
    y[5, 0] = np.nan
    return y


@pytest.mark.parametrize(
    "metric",
    [
        tf.keras.metrics.Mean,
        tf.keras.metrics.Sum,
        lambda: tf.keras.metrics.MeanTensor(),
    ],
    ids=["Mean", "Sum", "MeanTensor"],
)
def test_reducing_metrics_keep_nan(metric):
    m = metric()
    m.update_state([1.0, 2.0])
    m.update_state([NAN, 4.0])
    assert torch.isnan(torch.as_tensor(m.result())).any()


def test_empty_mean_is_zero_not_nan():
    assert float(tf.keras.metrics.Mean().result()) == 0.0


@pytest.mark.parametrize(
    "metric",
    [
        tf.keras.metrics.MeanSquaredError,
        tf.keras.metrics.MeanAbsoluteError,
        tf.keras.metrics.RootMeanSquaredError,
        tf.keras.metrics.MeanAbsolutePercentageError,
        tf.keras.metrics.LogCoshError,
    ],
)
def test_regression_metrics_keep_nan(metric):
    m = metric()
    m.update_state(np.array([[1.0], [NAN]], np.float32), np.array([[1.5], [2.0]], np.float32))
    assert math.isnan(float(m.result()))


@pytest.mark.parametrize(
    "loss",
    [
        tf.keras.losses.MeanSquaredError(),
        tf.keras.losses.MeanAbsoluteError(),
        tf.keras.losses.Huber(),
        tf.keras.losses.BinaryCrossentropy(from_logits=True),
        tf.keras.losses.BinaryCrossentropy(),
        tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        tf.keras.losses.CategoricalCrossentropy(),
    ],
    ids=lambda loss: type(loss).__name__ + str(getattr(loss, "from_logits", "")),
)
def test_keras_losses_keep_nan(loss):
    pred = torch.tensor([[0.2, 0.8], [NAN, 0.5]])
    if isinstance(loss, tf.keras.losses.SparseCategoricalCrossentropy):
        true = torch.tensor([1, 0])
    else:
        true = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    assert math.isnan(float(loss(true, pred)))


def test_fit_reports_nan_loss_and_terminate_on_nan_fires():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    history = model.fit(X, _y_with_one_nan(), batch_size=8, epochs=3, verbose=0,
                        callbacks=[tf.keras.callbacks.TerminateOnNaN()])
    assert len(history.history["loss"]) == 1, "TerminateOnNaN must stop training in the first epoch"
    assert math.isnan(history.history["loss"][0])


def test_evaluate_of_nan_weights_is_nan():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    model.fit(X, Y, epochs=1, verbose=0)
    with torch.no_grad():
        model.layers[0].kernel.fill_(float("nan"))
    loss, mae = model.evaluate(X, Y, verbose=0)
    assert math.isnan(loss) and math.isnan(mae)


def test_v1_losses_and_metrics_keep_nan():
    labels = torch.tensor([1.0, 2.0])
    preds = torch.tensor([1.0, NAN])
    for reduction in ("weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
                      "weighted_sum_by_nonzero_weights"):
        value = tf.compat.v1.losses.mean_squared_error(labels, preds, reduction=reduction)
        assert math.isnan(float(value)), reduction
    value, update = tf.compat.v1.metrics.mean(preds)
    assert math.isnan(float(update if isinstance(update, torch.Tensor) else value))


def _nan_input_fn():
    x = X.copy()
    x[3, 1] = np.nan
    return tf.data.Dataset.from_tensor_slices(({"x": x}, Y)).batch(8)


def test_premade_evaluate_reports_nan_loss():
    est = tf.estimator.DNNRegressor(
        hidden_units=[4], feature_columns=[tf.feature_column.numeric_column("x", shape=(3,))])
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(8), steps=2)
    result = est.evaluate(_nan_input_fn)
    assert math.isnan(result["loss"]) and math.isnan(result["average_loss"])
    assert result["global_step"] == 2


def test_scalar_summary_of_nan_reads_back_as_nan(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.scalar("loss", NAN, step=1)
    writer.flush()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    tensor_events = acc.Tensors("loss") if "loss" in acc.Tags().get("tensors", []) else None
    if tensor_events:
        from tensorboard.util import tensor_util

        value = float(tensor_util.make_ndarray(tensor_events[0].tensor_proto))
    else:
        value = acc.Scalars("loss")[0].value
    assert math.isnan(value)


def test_histogram_of_nan_is_not_a_normal_looking_histogram():
    table = histogram_buckets(torch.tensor([1.0, 2.0, NAN, 3.0]), bucket_count=4)
    assert np.isnan(table[:, :2]).all()
    assert table[:, 2].sum() == 4
    table = histogram_buckets(torch.tensor([1.0, float("inf")]), bucket_count=4)
    assert np.isnan(table[:, :2]).all()
    finite = histogram_buckets(torch.tensor([1.0, 2.0, 3.0]), bucket_count=2)
    assert np.isfinite(finite).all() and finite[:, 2].sum() == 3
