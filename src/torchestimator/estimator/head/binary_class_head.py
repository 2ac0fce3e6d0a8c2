"""`BinaryClassHead`: single-label binary classification with sigmoid cross-entropy."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.estimator.head import _labels, base_head
from torchestimator.estimator.head._metrics import AccuracyBaseline
from torchestimator.estimator.head.base_head import LossParts, broadcast_weights
from torchestimator.estimator.head.keys import (
    CLASSIFY_SERVING_KEY,
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    REGRESS_SERVING_KEY,
    MetricKeys,
    PredictionKeys,
)
from torchestimator.keras import metrics as km
from torchestimator.saved_model._export_output import (
    ClassificationOutput,
    PredictOutput,
    RegressionOutput,
)

_VALID_KEYS = (
    PredictionKeys.LOGITS, PredictionKeys.LOGISTIC, PredictionKeys.PROBABILITIES,
    PredictionKeys.CLASS_IDS, PredictionKeys.CLASSES, PredictionKeys.ALL_CLASS_IDS,
    PredictionKeys.ALL_CLASSES,
)


def check_prediction_keys(keys: Any, valid_keys: tuple) -> None:
    """Raises ValueError for a key that is not one of `valid_keys`."""
    for key in keys:
        if key not in valid_keys:
            raise ValueError(
                f"Prediction key must be in PredictionKeys, given: {key!r}. Valid prediction keys "
                f"include {list(valid_keys)}."
            )


class BinaryClassHead(base_head.Head):
    """Creates a `Head` for single label binary classification.

    Uses `sigmoid_cross_entropy_with_logits` loss. The head expects `logits`
    with shape `[D0, D1, ... DN, 1]` (usually `[batch_size, 1]`). `labels`
    must match: `[D0, ... DN, 1]` or `[D0, ... DN]`, floats in [0, 1] — or, with
    `label_vocabulary`, strings from it.

    Predictions: `logits`, `logistic` (sigmoid), `probabilities` (softmax of
    `[0, logit]`), `class_ids` (int64), `classes` (bytes), `all_class_ids`,
    `all_classes`. Eval metrics: `accuracy`, `precision`, `recall`, `auc`,
    `auc_precision_recall`, `prediction/mean`, `label/mean`,
    `accuracy_baseline`, `average_loss` (and per threshold
    `accuracy/positive_threshold_<t>`, `precision/...`, `recall/...`).

    Args:
      weight_column: A string or a `NumericColumn` defining the example weights,
        multiplied into the loss of each example.
      thresholds: Iterable of floats in (0, 1): extra accuracy/precision/recall
        metrics at each threshold on the logistic output.
      label_vocabulary: A list or tuple of strings, the possible label values;
        labels are then strings from it.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`: the weighted sum of losses divided by the batch size.
      loss_fn: Optional loss function `loss_fn(labels, logits[, features])`
        returning `[D0, ... DN, 1]`.
      name: Name of the head; metric and summary keys get the suffix `/<name>`.
    """

    def __init__(self, weight_column: Any = None, thresholds: Any = None, label_vocabulary: Any = None,
                 loss_reduction: str = "sum_over_batch_size", loss_fn: Any = None,
                 name: str | None = None):
        self._label_vocabulary = _labels.check_label_vocabulary(label_vocabulary, None, "BinaryClassHead")
        if self._label_vocabulary is not None and len(self._label_vocabulary) != 2:
            raise ValueError(
                "BinaryClassHead: label_vocabulary must have exactly 2 entries (n_classes=2); "
                f"given {list(self._label_vocabulary)}."
            )
        thresholds = tuple(thresholds) if thresholds else ()
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds not in (0, 1): {thresholds}.")
        base_head.validate_loss_reduction(loss_reduction)
        if loss_fn:
            base_head.validate_loss_fn_args(loss_fn)
        self._weight_column = weight_column
        self._thresholds = thresholds
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name

    @property
    def logits_dimension(self) -> int:
        """1: one logit per example."""
        return 1

    # --------------------------------------------------------------------- loss
    def _processed_labels(self, logits: torch.Tensor, labels: Any) -> torch.Tensor:
        if self._label_vocabulary is not None:
            if labels is None:
                _labels.as_label_tensor(labels, logits.device)
            labels = _labels.lookup_class_ids(labels, self._label_vocabulary, logits.device)
        else:
            labels = _labels.as_label_tensor(labels, logits.device)
        labels = base_head.check_dense_labels_match_logits_and_reshape(labels, logits, 1)
        # checked before the cast: labels just copied from the host are checked there (`loop.to_device`)
        return _labels.check_label_range(labels, 2, clamp=False).float()

    def _loss_parts(self, logits: torch.Tensor, labels: Any, features: Any) -> LossParts:
        labels = self._processed_labels(logits, labels)
        if self._loss_fn:
            loss = base_head.call_loss_fn(self._loss_fn, labels, logits, features, 1)
        else:
            loss = F.binary_cross_entropy_with_logits(logits, labels, reduction="none")
        weights = base_head.get_weights_and_check_match_logits(features, self._weight_column, logits)
        return LossParts(labels, loss, weights)

    def _fused_training_loss(self, logits: torch.Tensor, labels: Any, features: Any) -> torch.Tensor | None:
        """`binary_cross_entropy_with_logits` with the reduction built in, for numeric labels of
        shape [batch] or [batch, 1] in {0, 1} and no weights or loss_fn (see
        `Head._fused_training_loss`)."""
        reduction = base_head.fused_reduction(self._loss_reduction)
        if (
            reduction is None or self._loss_fn or self._weight_column is not None
            or self._label_vocabulary is not None or type(labels) is not torch.Tensor
            or labels.dtype is torch.bool or logits.dim() != 2 or logits.shape[1] != 1
        ):
            return None
        batch = logits.shape[0]
        if labels.shape != (batch, 1):
            if labels.shape != (batch,):
                return None
            labels = labels.reshape(batch, 1)
        labels = _labels.check_label_range(labels.to(logits.device), 2, clamp=False).to(torch.float32)
        return F.binary_cross_entropy_with_logits(logits, labels, reduction=reduction)

    # --------------------------------------------------------------------- predictions
    def predictions(self, logits: Any, keys: Any = None) -> dict:
        """Returns the dict of predictions for `logits` (all valid keys, or `keys`)."""
        if keys:
            check_prediction_keys(keys, _VALID_KEYS)
        else:
            keys = _VALID_KEYS
        logits = base_head.check_logits_final_dim(logits, 1)
        pk = PredictionKeys
        out: dict[str, Any] = {}
        if pk.LOGITS in keys:
            out[pk.LOGITS] = logits
        if pk.LOGISTIC in keys:
            out[pk.LOGISTIC] = torch.sigmoid(logits)
        if pk.PROBABILITIES in keys:
            out[pk.PROBABILITIES] = torch.softmax(torch.cat([torch.zeros_like(logits), logits], -1), -1)
        if pk.CLASS_IDS in keys or pk.CLASSES in keys:
            class_ids = (logits > 0).to(torch.int64)
            if pk.CLASS_IDS in keys:
                out[pk.CLASS_IDS] = class_ids
            if pk.CLASSES in keys:
                out[pk.CLASSES] = _labels.classes_of(class_ids, 2, self._label_vocabulary)
        if pk.ALL_CLASS_IDS in keys:
            out[pk.ALL_CLASS_IDS] = _labels.all_class_ids(logits, 2)
        if pk.ALL_CLASSES in keys:
            out[pk.ALL_CLASSES] = _labels.all_classes((logits.shape[0],), 2, self._label_vocabulary)
        return out

    def _step_predictions(self, logits: torch.Tensor) -> dict:
        return self.predictions(logits, [PredictionKeys.LOGITS, PredictionKeys.LOGISTIC,
                                         PredictionKeys.PROBABILITIES, PredictionKeys.CLASS_IDS])

    def _export_outputs(self, predictions: dict) -> dict:
        classifier = ClassificationOutput(scores=predictions[PredictionKeys.PROBABILITIES],
                                          classes=predictions[PredictionKeys.ALL_CLASSES])
        return {
            DEFAULT_SERVING_KEY: classifier,
            CLASSIFY_SERVING_KEY: classifier,
            REGRESS_SERVING_KEY: RegressionOutput(value=predictions[PredictionKeys.LOGISTIC]),
            PREDICT_SERVING_KEY: PredictOutput(predictions),
        }

    # --------------------------------------------------------------------- metrics
    def metrics(self, regularization_losses: Any = None) -> dict:
        """Creates the eval metrics (Keras metrics keyed by their metric keys)."""
        key = self._summary_key
        keys = MetricKeys
        out = {
            key(keys.LOSS_MEAN): km.Mean(name=key(keys.LOSS_MEAN)),
            key(keys.ACCURACY): km.Accuracy(name=key(keys.ACCURACY)),
            key(keys.PRECISION): km.Precision(name=key(keys.PRECISION)),
            key(keys.RECALL): km.Recall(name=key(keys.RECALL)),
            key(keys.PREDICTION_MEAN): km.Mean(name=key(keys.PREDICTION_MEAN)),
            key(keys.LABEL_MEAN): km.Mean(name=key(keys.LABEL_MEAN)),
            key(keys.ACCURACY_BASELINE): AccuracyBaseline(name=key(keys.ACCURACY_BASELINE)),
            key(keys.AUC): km.AUC(name=key(keys.AUC)),
            key(keys.AUC_PR): km.AUC(curve="PR", name=key(keys.AUC_PR)),
        }
        self._regularization_metric(out, regularization_losses)
        for t in self._thresholds:
            acc, prec, rec = (key(keys.ACCURACY_AT_THRESHOLD % t), key(keys.PRECISION_AT_THRESHOLD % t),
                              key(keys.RECALL_AT_THRESHOLD % t))
            out[acc] = km.BinaryAccuracy(name=acc, threshold=t)
            out[prec] = km.Precision(name=prec, thresholds=t)
            out[rec] = km.Recall(name=rec, thresholds=t)
        return out

    def update_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                       regularization_losses: Any = None) -> dict:
        """Updates the metrics of `metrics()` with one batch; returns `eval_metrics`."""
        return self._update_batch_metrics(eval_metrics, features, logits, labels, regularization_losses)

    def _update_metrics(self, eval_metrics: dict, parts: LossParts, logits: torch.Tensor, labels: Any,
                        regularization_losses: Any) -> dict:
        key = self._summary_key
        keys = MetricKeys
        labels, weights = parts.labels, parts.weights
        class_ids = (logits > 0).to(torch.float32)
        logistic = torch.sigmoid(logits)
        w = broadcast_weights(weights, labels)
        eval_metrics[key(keys.LOSS_MEAN)].update_state(parts.unweighted_loss, sample_weight=w)
        eval_metrics[key(keys.ACCURACY)].update_state(labels, class_ids, sample_weight=w)
        eval_metrics[key(keys.PRECISION)].update_state(labels, class_ids, sample_weight=w)
        eval_metrics[key(keys.RECALL)].update_state(labels, class_ids, sample_weight=w)
        eval_metrics[key(keys.PREDICTION_MEAN)].update_state(logistic, sample_weight=w)
        eval_metrics[key(keys.LABEL_MEAN)].update_state(labels, sample_weight=w)
        eval_metrics[key(keys.ACCURACY_BASELINE)].update_state(labels, sample_weight=w)
        eval_metrics[key(keys.AUC)].update_state(labels, logistic, sample_weight=w)
        eval_metrics[key(keys.AUC_PR)].update_state(labels, logistic, sample_weight=w)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        for t in self._thresholds:
            for template in (keys.ACCURACY_AT_THRESHOLD, keys.PRECISION_AT_THRESHOLD,
                             keys.RECALL_AT_THRESHOLD):
                eval_metrics[key(template % t)].update_state(labels, logistic, sample_weight=w)
        return eval_metrics
