"""`MultiClassHead`: single-label classification into n_classes > 2 with softmax cross-entropy."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._engine import host_twins
from torchestimator.estimator.head import _labels, base_head
from torchestimator.estimator.head.base_head import LossParts, broadcast_weights
from torchestimator.estimator.head.binary_class_head import check_prediction_keys
from torchestimator.estimator.head.keys import (
    CLASSIFY_SERVING_KEY,
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    MetricKeys,
    PredictionKeys,
)
from torchestimator.keras import metrics as km
from torchestimator.saved_model._export_output import ClassificationOutput, PredictOutput

#: An `ignore_index` no label can equal: every label counts in the loss, as in TF.
_NO_IGNORED_LABEL = -(2**63)

_VALID_KEYS = (
    PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES, PredictionKeys.CLASS_IDS,
    PredictionKeys.CLASSES, PredictionKeys.ALL_CLASS_IDS, PredictionKeys.ALL_CLASSES,
)


def validate_n_classes(n_classes: Any, minimum: int = 3, what: str = "n_classes must be > 2") -> int:
    """Returns `n_classes` after checking it is an int >= `minimum`."""
    if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < minimum:
        raise ValueError(f"{what}: {n_classes!r}.")
    return n_classes


class MultiClassHead(base_head.Head):
    """Creates a `Head` for multi class classification.

    Uses `sparse_softmax_cross_entropy` loss. The head expects `logits` with
    shape `[D0, D1, ... DN, n_classes]`. `labels` are `[D0, ... DN, 1]` or
    `[D0, ... DN]` integer class ids in `[0, n_classes)` — or, with
    `label_vocabulary`, strings from it.

    Predictions: `logits`, `probabilities` (softmax), `class_ids` (argmax,
    int64 `[D0, ... DN, 1]`), `classes` (bytes), `all_class_ids`,
    `all_classes`. Eval metrics: `accuracy` and `average_loss`.

    Args:
      n_classes: Number of classes, must be greater than 2 (for 2 classes, use
        `BinaryClassHead`).
      weight_column: A string or a `NumericColumn` defining the example weights.
      label_vocabulary: A list or tuple of strings, the class names; labels are
        then strings from it.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
      loss_fn: Optional loss function `loss_fn(labels, logits[, features])`
        returning `[D0, ... DN, 1]`; it gets integer class-id labels.
      name: Name of the head; metric and summary keys get the suffix `/<name>`.
    """

    def __init__(self, n_classes: int, weight_column: Any = None, label_vocabulary: Any = None,
                 loss_reduction: str = "sum_over_batch_size", loss_fn: Any = None,
                 name: str | None = None):
        self._n_classes = validate_n_classes(n_classes)
        self._label_vocabulary = _labels.check_label_vocabulary(label_vocabulary, n_classes, "MultiClassHead")
        base_head.validate_loss_reduction(loss_reduction)
        if loss_fn:
            base_head.validate_loss_fn_args(loss_fn)
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name

    @property
    def logits_dimension(self) -> int:
        """`n_classes`."""
        return self._n_classes

    def _processed_labels(self, logits: torch.Tensor, labels: Any) -> torch.Tensor:
        if self._label_vocabulary is not None:
            if labels is None:
                _labels.as_label_tensor(labels, logits.device)
            labels = _labels.lookup_class_ids(labels, self._label_vocabulary, logits.device)
        else:
            labels = _labels.as_label_tensor(labels, logits.device)
            _labels.check_integer_labels(labels, self._n_classes, "MultiClassHead")
        labels = base_head.check_dense_labels_match_logits_and_reshape(labels, logits, 1)
        if labels.dtype is not torch.int64 and host_twins.host_values(labels) is not None:
            # checked at once on the host, before the cast makes them new values on the device
            return _labels.check_label_range(labels, self._n_classes).to(torch.int64)
        return _labels.check_label_range(labels.to(torch.int64), self._n_classes)

    def _loss_parts(self, logits: torch.Tensor, labels: Any, features: Any) -> LossParts:
        label_ids = self._processed_labels(logits, labels)
        if self._loss_fn:
            loss = base_head.call_loss_fn(self._loss_fn, label_ids, logits, features, 1)
        else:
            flat = F.cross_entropy(logits.reshape(-1, self._n_classes), label_ids.reshape(-1), reduction="none")
            loss = flat.reshape(label_ids.shape)
        weights = base_head.get_weights_and_check_match_logits(features, self._weight_column, logits)
        return LossParts(label_ids, loss, weights)

    def _fused_training_loss(self, logits: torch.Tensor, labels: Any, features: Any) -> torch.Tensor | None:
        """`cross_entropy` with the reduction built in, for int64 class-id labels of shape
        [batch] or [batch, 1] and no weights or loss_fn (see `Head._fused_training_loss`)."""
        reduction = base_head.fused_reduction(self._loss_reduction)
        if (
            reduction is None or self._loss_fn or self._weight_column is not None
            or self._label_vocabulary is not None or type(labels) is not torch.Tensor
            or labels.dtype is not torch.int64 or logits.dim() != 2
        ):
            return None
        batch = logits.shape[0]
        if labels.shape != (batch,) and labels.shape != (batch, 1):
            return None
        ids = labels.reshape(batch).to(logits.device)
        if ids.device.type != "cpu":  # a CUDA kernel asserts on a bad label: check (deferred), clamp
            ids = _labels.check_label_range(ids, self._n_classes)
        try:
            # No label value is ignored (torch ignores -100 by default, TF rejects it); on the
            # CPU an out-of-range label raises IndexError, and the range check then names it.
            return F.cross_entropy(logits, ids, reduction=reduction, ignore_index=_NO_IGNORED_LABEL)
        except IndexError:
            _labels.check_label_range(ids, self._n_classes, defer=False)
            raise

    def predictions(self, logits: Any, keys: Any = None) -> dict:
        """Returns the dict of predictions for `logits` (all valid keys, or `keys`)."""
        if keys:
            check_prediction_keys(keys, _VALID_KEYS)
        else:
            keys = _VALID_KEYS
        logits = base_head.check_logits_final_dim(logits, self._n_classes)
        pk = PredictionKeys
        out: dict[str, Any] = {}
        if pk.LOGITS in keys:
            out[pk.LOGITS] = logits
        if pk.PROBABILITIES in keys:
            out[pk.PROBABILITIES] = torch.softmax(logits, -1)
        if pk.CLASS_IDS in keys or pk.CLASSES in keys:
            class_ids = torch.argmax(logits, -1, keepdim=True)
            if pk.CLASS_IDS in keys:
                out[pk.CLASS_IDS] = class_ids
            if pk.CLASSES in keys:
                out[pk.CLASSES] = _labels.classes_of(class_ids, self._n_classes, self._label_vocabulary)
        if pk.ALL_CLASS_IDS in keys:
            out[pk.ALL_CLASS_IDS] = _labels.all_class_ids(logits, self._n_classes)
        if pk.ALL_CLASSES in keys:
            out[pk.ALL_CLASSES] = _labels.all_classes(
                (logits.shape[0],), self._n_classes, self._label_vocabulary
            )
        return out

    def _step_predictions(self, logits: torch.Tensor) -> dict:
        return self.predictions(logits, [PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES,
                                         PredictionKeys.CLASS_IDS])

    def _export_outputs(self, predictions: dict) -> dict:
        classifier = ClassificationOutput(scores=predictions[PredictionKeys.PROBABILITIES],
                                          classes=predictions[PredictionKeys.ALL_CLASSES])
        return {
            DEFAULT_SERVING_KEY: classifier,
            CLASSIFY_SERVING_KEY: classifier,
            PREDICT_SERVING_KEY: PredictOutput(predictions),
        }

    def metrics(self, regularization_losses: Any = None) -> dict:
        """Creates the eval metrics: `average_loss`, `accuracy` (and `regularization_loss`)."""

        key = self._summary_key
        out = {key(MetricKeys.LOSS_MEAN): km.Mean(name=key(MetricKeys.LOSS_MEAN))}
        self._regularization_metric(out, regularization_losses)  # TF's order: loss, regularization, accuracy
        out[key(MetricKeys.ACCURACY)] = km.Accuracy(name=key(MetricKeys.ACCURACY))
        return out

    def update_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                       regularization_losses: Any = None) -> dict:
        """Updates the metrics of `metrics()` with one batch; returns `eval_metrics`."""
        return self._update_batch_metrics(eval_metrics, features, logits, labels, regularization_losses)

    def _update_metrics(self, eval_metrics: dict, parts: LossParts, logits: torch.Tensor, labels: Any,
                        regularization_losses: Any) -> dict:
        key = self._summary_key
        w = broadcast_weights(parts.weights, parts.labels)
        class_ids = torch.argmax(logits, -1, keepdim=True)
        eval_metrics[key(MetricKeys.LOSS_MEAN)].update_state(parts.unweighted_loss, sample_weight=w)
        eval_metrics[key(MetricKeys.ACCURACY)].update_state(parts.labels, class_ids, sample_weight=w)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        return eval_metrics
