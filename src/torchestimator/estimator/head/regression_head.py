"""Regression heads: `RegressionHead` (squared error), `PoissonRegressionHead` (log-Poisson loss,
inverse link exp) and `LogisticRegressionHead` (sigmoid cross-entropy on labels in [0, 1])."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.estimator.head import _labels, base_head
from torchestimator.estimator.head.base_head import LossParts, broadcast_weights
from torchestimator.estimator.head.keys import (
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    REGRESS_SERVING_KEY,
    MetricKeys,
    PredictionKeys,
)
from torchestimator.saved_model._export_output import PredictOutput, RegressionOutput


class RegressionHead(base_head.Head):
    """Creates a `Head` for regression using the `mean_squared_error` loss.

    The loss is the weighted sum over all input dimensions: with labels
    `[batch_size, label_dimension]`, over both. `logits` and `labels` are
    `[D0, ... DN, label_dimension]` (or labels `[D0, ... DN]` when
    `label_dimension=1`). Weights may be `[D0, ... DN]`, `[D0, ... DN, 1]` or
    `[D0, ... DN, label_dimension]`.

    Predictions: `predictions` (`inverse_link_fn(logits)`, or the logits), plus
    `logits` when `inverse_link_fn` is set. Eval metrics: `average_loss`,
    `prediction/mean`, `label/mean`.

    Args:
      label_dimension: Number of regression labels per example.
      weight_column: A string or a `NumericColumn` defining the example weights.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`: the weighted sum divided by batch size x label_dimension.
      loss_fn: Optional loss function `loss_fn(labels, logits[, features])`
        returning `[D0, ... DN, label_dimension]`. Defaults to squared error.
      inverse_link_fn: Optional inverse link function ("mean function"),
        identity by default.
      name: Name of the head; metric and summary keys get the suffix `/<name>`.
    """

    def __init__(self, label_dimension: int = 1, weight_column: Any = None,
                 loss_reduction: str = "sum_over_batch_size", loss_fn: Any = None,
                 inverse_link_fn: Any = None, name: str | None = None):
        if isinstance(label_dimension, bool) or not isinstance(label_dimension, int) or label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension!r}: it must be an int >= 1.")
        base_head.validate_loss_reduction(loss_reduction)
        if loss_fn:
            base_head.validate_loss_fn_args(loss_fn)
        self._logits_dimension = label_dimension
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._inverse_link_fn = inverse_link_fn
        self._name = name

    @property
    def logits_dimension(self) -> int:
        """`label_dimension`."""
        return self._logits_dimension

    def _processed_labels(self, logits: torch.Tensor, labels: Any) -> torch.Tensor:
        labels = _labels.as_label_tensor(labels, logits.device)
        labels = base_head.check_dense_labels_match_logits_and_reshape(labels, logits, self._logits_dimension)
        return labels.float()

    def _elementwise_loss(self, labels: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        return torch.square(logits - labels)

    def _loss_parts(self, logits: torch.Tensor, labels: Any, features: Any) -> LossParts:
        labels = self._processed_labels(logits, labels)
        if self._loss_fn:
            loss = base_head.call_loss_fn(self._loss_fn, labels, logits, features, self._logits_dimension)
        else:
            loss = self._elementwise_loss(labels, logits)
        weights = base_head.get_weights_and_check_match_logits(
            features, self._weight_column, logits, allow_per_logit_weights=True
        )
        return LossParts(labels, loss, weights)

    def predictions(self, logits: Any, keys: Any = None) -> dict:
        """Returns `{'predictions': ...}` (and `'logits'` with an inverse link function)."""
        logits = base_head.check_logits_final_dim(logits, self._logits_dimension)
        if self._inverse_link_fn is not None:
            out = {PredictionKeys.PREDICTIONS: self._inverse_link_fn(logits), PredictionKeys.LOGITS: logits}
        else:
            out = {PredictionKeys.PREDICTIONS: logits}
        if keys:
            for key in keys:
                if key not in out:
                    raise ValueError(
                        f"Prediction key must be in PredictionKeys, given: {key!r}. Valid prediction "
                        f"keys include {sorted(out)}."
                    )
            out = {k: v for k, v in out.items() if k in keys}
        return out

    def _export_outputs(self, predictions: dict) -> dict:
        regression = RegressionOutput(value=predictions[PredictionKeys.PREDICTIONS])
        return {
            DEFAULT_SERVING_KEY: regression,
            REGRESS_SERVING_KEY: regression,
            PREDICT_SERVING_KEY: PredictOutput(predictions),
        }

    def metrics(self, regularization_losses: Any = None) -> dict:
        """Creates the eval metrics: `average_loss`, `prediction/mean`, `label/mean`."""
        key = self._summary_key
        out = {key(k): self._mean_metric(key(k)) for k in
               (MetricKeys.LOSS_MEAN, MetricKeys.PREDICTION_MEAN, MetricKeys.LABEL_MEAN)}
        self._regularization_metric(out, regularization_losses)
        return out

    def update_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                       regularization_losses: Any = None) -> dict:
        """Updates the metrics of `metrics()` with one batch; returns `eval_metrics`."""
        return self._update_batch_metrics(eval_metrics, features, logits, labels, regularization_losses)

    def _update_metrics(self, eval_metrics: dict, parts: LossParts, logits: torch.Tensor, labels: Any,
                        regularization_losses: Any) -> dict:
        key = self._summary_key
        predicted = self._inverse_link_fn(logits) if self._inverse_link_fn is not None else logits
        w = broadcast_weights(parts.weights, parts.unweighted_loss)
        eval_metrics[key(MetricKeys.LOSS_MEAN)].update_state(parts.unweighted_loss, sample_weight=w)
        eval_metrics[key(MetricKeys.LABEL_MEAN)].update_state(
            parts.labels, sample_weight=broadcast_weights(parts.weights, parts.labels))
        eval_metrics[key(MetricKeys.PREDICTION_MEAN)].update_state(
            predicted, sample_weight=broadcast_weights(parts.weights, predicted))
        self._update_regularization_metric(eval_metrics, regularization_losses)
        return eval_metrics


def log_poisson_loss(targets: torch.Tensor, log_input: torch.Tensor,
                     compute_full_loss: bool = False) -> torch.Tensor:
    """TF's `tf.nn.log_poisson_loss`: `exp(log_input) - log_input * targets`, plus Stirling's
    approximation of `log(targets!)` (for targets > 1) when `compute_full_loss`."""
    loss = torch.exp(log_input) - log_input * targets
    if compute_full_loss:
        safe = torch.where(targets > 0, targets, torch.ones_like(targets))
        stirling = safe * torch.log(safe) - safe + 0.5 * torch.log(2 * math.pi * safe)
        loss = loss + torch.where(targets > 1, stirling, torch.zeros_like(targets))
    return loss


class PoissonRegressionHead(RegressionHead):
    """Creates a `Head` for poisson regression using `tf.nn.log_poisson_loss`.

    Labels are counts (>= 0); the logits are the log of the predicted rate, and
    `predictions` is `exp(logits)` (`logits` is also returned). Loss reduction,
    weights and metrics as `RegressionHead`.

    Args:
      label_dimension: Number of regression labels per example.
      weight_column: A string or a `NumericColumn` defining the example weights.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`.
      compute_full_loss: Whether to include the constant `log(z!)` term (Stirling's
        approximation) in the loss.
      name: Name of the head.
    """

    def __init__(self, label_dimension: int = 1, weight_column: Any = None,
                 loss_reduction: str = "sum_over_batch_size", compute_full_loss: bool = True,
                 name: str | None = None):
        self._compute_full_loss = bool(compute_full_loss)
        super().__init__(label_dimension=label_dimension, weight_column=weight_column,
                         loss_reduction=loss_reduction, inverse_link_fn=torch.exp, name=name)

    def _elementwise_loss(self, labels: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        _labels.check_non_negative(
            labels, "PoissonRegressionHead: labels are counts and must be >= 0; found {found:g}.")
        return log_poisson_loss(labels, logits, self._compute_full_loss)


class LogisticRegressionHead(RegressionHead):
    """Creates a `Head` for logistic regression.

    Uses `sigmoid_cross_entropy_with_logits` loss, as `BinaryClassHead`, but
    labels are floats in [0, 1] (no `label_vocabulary`), the metrics are the
    regression ones (no AUC), and `predictions` is `sigmoid(logits)` (with
    `logits`).

    Args:
      weight_column: A string or a `NumericColumn` defining the example weights.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`.
      name: Name of the head.
    """

    def __init__(self, weight_column: Any = None, loss_reduction: str = "sum_over_batch_size",
                 name: str | None = None):
        super().__init__(label_dimension=1, weight_column=weight_column, loss_reduction=loss_reduction,
                         inverse_link_fn=torch.sigmoid, name=name)

    def _elementwise_loss(self, labels: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        _labels.check_label_range(labels, 2, message=(
            "Labels must be in range [0, 1] for LogisticRegressionHead; found values outside it."
        ))
        return F.binary_cross_entropy_with_logits(logits, labels, reduction="none")
