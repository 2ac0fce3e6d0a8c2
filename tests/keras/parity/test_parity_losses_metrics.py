"""Every loss (each reduction, with per-sample and per-element sample weights, and the loss
function) and every metric (two update_state calls, the second with sample weights) against
tf.keras 2.15's values on fixed inputs (fixtures/losses.npz, fixtures/metrics.npz)."""

import pytest
from _tf_parity import TOLERANCE, load, run_loss, run_metric, scaled_error

import torchestimator as tf

LOSSES, LOSS_ARRAYS = load("losses")
METRICS, METRIC_ARRAYS = load("metrics")


@pytest.mark.parametrize("entry", LOSSES, ids=[e["id"] for e in LOSSES])
def test_loss_matches_tf(entry):
    for name, ours, theirs in run_loss(entry, LOSS_ARRAYS):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} ({entry['class']} {entry['kwargs']}): {name} differs from TF by {err:.3g}"


@pytest.mark.parametrize("entry", METRICS, ids=[e["id"] for e in METRICS])
def test_metric_matches_tf(entry):
    for name, ours, theirs in run_metric(entry, METRIC_ARRAYS):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} ({entry['class']} {entry['kwargs']}): {name} differs from TF by {err:.3g}"


def test_every_loss_and_metric_class_is_covered():
    losses = {e["class"] for e in LOSSES}
    exported = {n for n in dir(tf.keras.losses) if n[0].isupper() and n not in ("Loss", "LossFunctionWrapper", "Reduction")}
    aliases = {"BCE", "KLD", "MAE", "MAPE", "MSE", "MSLE"}
    assert exported - aliases <= losses
    metrics = {e["class"] for e in METRICS}
    base = {"Metric", "MeanMetricWrapper", "Reduce", "SensitivitySpecificityBase", "StateVariable", "SumOverBatchSize"}
    exported = {n for n in dir(tf.keras.metrics) if n[0].isupper()} - base - {"ACC", "BCE", "KLD", "MAE", "MAPE", "MSE", "MSLE"}
    assert exported <= metrics, sorted(exported - metrics)


def test_scaled_error_flags_shape_and_nan_differences():
    import numpy as np

    assert scaled_error(np.zeros(2), np.zeros(3)) == float("inf")
    assert scaled_error(np.array([np.nan]), np.array([1.0])) == float("inf")
    assert scaled_error(np.array([np.nan]), np.array([np.nan])) == 0.0
    assert scaled_error(np.array([2.0]), np.array([4.0])) == 0.5
