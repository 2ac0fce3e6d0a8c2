"""`MultiLabelHead`: each example may belong to several of n_classes classes (sigmoid
cross-entropy per class, averaged over the classes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

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

_VALID_KEYS = (PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES, PredictionKeys.CLASSES)


class MultiLabelHead(base_head.Head):
    """Creates a `Head` for multi-label classification.

    Multi-label classification handles the case where each example may have
    zero or more associated labels, from a discrete set. The head expects
    `logits` with shape `[D0, ... DN, n_classes]`. Labels are either a
    multi-hot indicator `[D0, ... DN, n_classes]` of 0/1, or (TF's
    `SparseTensor` case) one list of class ids per example — class names from
    `label_vocabulary` when it is given (e.g. `[['a'], [], ['a', 'c']]`).

    The loss is sigmoid cross-entropy averaged over the classes (or `loss_fn`).
    Predictions: `logits`, `probabilities` (sigmoid), `classes` (every class
    name, bytes). Eval metrics: `average_loss`, `auc`, `auc_precision_recall`;
    per threshold `accuracy/positive_threshold_<t>`, `precision/...`,
    `recall/...`; per class of `classes_for_class_based_metrics`
    `probability_mean/<class>`, `auc/<class>`, `auc_precision_recall/<class>`.

    Args:
      n_classes: Number of classes, must be greater than 1.
      weight_column: A string or a `NumericColumn` defining the example weights.
      thresholds: Iterable of floats in (0, 1) for the per-threshold metrics.
      label_vocabulary: A list of `n_classes` strings, the class names.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`.
      loss_fn: Optional loss function returning `[D0, ... DN, 1]`.
      classes_for_class_based_metrics: Class ids (or names, with
        `label_vocabulary`) to compute per-class metrics for.
      name: Name of the head; metric and summary keys get the suffix `/<name>`.
    """

    def __init__(self, n_classes: int, weight_column: Any = None, thresholds: Any = None,
                 label_vocabulary: Any = None, loss_reduction: str = "sum_over_batch_size",
                 loss_fn: Any = None, classes_for_class_based_metrics: Any = None,
                 name: str | None = None):
        if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < 2:
            raise ValueError(f"n_classes must be > 1 for multi-label classification. Given: {n_classes!r}")
        thresholds = tuple(thresholds) if thresholds else ()
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds must be in (0, 1) range. Given: {threshold}")
        self._label_vocabulary = _labels.check_label_vocabulary(label_vocabulary, n_classes, "MultiLabelHead")
        if loss_fn:
            base_head.validate_loss_fn_args(loss_fn)
        base_head.validate_loss_reduction(loss_reduction)
        class_ids: tuple = ()
        if classes_for_class_based_metrics:
            requested = tuple(classes_for_class_based_metrics)
            if isinstance(requested[0], (str, bytes)):
                if not self._label_vocabulary:
                    raise ValueError("label_vocabulary must be provided when "
                                     "classes_for_class_based_metrics are strings.")
                missing = [c for c in requested if _labels._as_text(c) not in self._label_vocabulary]
                if missing:
                    raise ValueError(f"classes_for_class_based_metrics {missing} are not in "
                                     f"label_vocabulary {list(self._label_vocabulary)}.")
                class_ids = tuple(self._label_vocabulary.index(_labels._as_text(c)) for c in requested)
            else:
                for class_id in requested:
                    if class_id < 0 or class_id >= n_classes:
                        raise ValueError(f"All classes_for_class_based_metrics must be in range [0, "
                                         f"{n_classes - 1}]. Given: {class_id}")
                class_ids = tuple(int(c) for c in requested)
        self._n_classes = n_classes
        self._weight_column = weight_column
        self._thresholds = thresholds
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._class_ids = class_ids
        self._name = name

    @property
    def logits_dimension(self) -> int:
        """`n_classes`."""
        return self._n_classes

    def _class_metric_keys(self, class_id: int) -> tuple[str, str, str]:
        keys = MetricKeys
        if self._label_vocabulary is None:
            names = (keys.PROBABILITY_MEAN_AT_CLASS % class_id, keys.AUC_AT_CLASS % class_id,
                     keys.AUC_PR_AT_CLASS % class_id)
        else:
            label = self._label_vocabulary[class_id]
            names = (keys.PROBABILITY_MEAN_AT_NAME % label, keys.AUC_AT_NAME % label,
                     keys.AUC_PR_AT_NAME % label)
        return tuple(self._summary_key(n) for n in names)

    # --------------------------------------------------------------------- labels
    def _ids_to_indicator(self, rows: list, device: torch.device) -> torch.Tensor:
        out = torch.zeros((len(rows), self._n_classes), dtype=torch.int64)
        for i, row in enumerate(rows):
            values = [row] if isinstance(row, (str, bytes, int, np.integer)) else list(row)
            values = [v for v in values if not (isinstance(v, (str, bytes)) and len(v) == 0)]
            if not values:
                continue
            if self._label_vocabulary is not None:
                ids = _labels.lookup_class_ids(np.asarray(values, dtype=object), self._label_vocabulary,
                                               torch.device("cpu")).tolist()
            else:
                if any(isinstance(v, (str, bytes)) for v in values):
                    raise ValueError("MultiLabelHead: labels are strings, but no label_vocabulary was given.")
                ids = [int(v) for v in values]
                for v in ids:
                    if v < 0 or v >= self._n_classes:
                        raise ValueError(f"labels must be an integer SparseTensor with values in "
                                         f"[0, {self._n_classes}); found {v}.")
            out[i, ids] = 1
        return out.to(device)

    def _processed_labels(self, logits: torch.Tensor, labels: Any) -> torch.Tensor:
        if labels is None:
            _labels.as_label_tensor(labels, logits.device)
        ragged = isinstance(labels, (list, tuple)) or (
            isinstance(labels, np.ndarray) and (labels.dtype.kind in "OUS")
        )
        if ragged:
            processed = self._ids_to_indicator(list(labels), logits.device)
        else:
            if self._label_vocabulary is not None:
                raise ValueError(
                    "MultiLabelHead: with label_vocabulary, labels must be lists of class names per "
                    f"example; received a numeric {type(labels).__name__}."
                )
            processed = _labels.as_label_tensor(labels, logits.device)
            _labels.check_label_range(processed, 2, message=(
                "labels must be an integer indicator Tensor with values in [0, 1]"
            ))
            processed = processed.to(torch.int64)
        return base_head.check_dense_labels_match_logits_and_reshape(processed, logits, self._n_classes)

    def _loss_parts(self, logits: torch.Tensor, labels: Any, features: Any) -> LossParts:
        processed = self._processed_labels(logits, labels)
        if self._loss_fn:
            loss = base_head.call_loss_fn(self._loss_fn, processed, logits, features, 1)
        else:
            loss = F.binary_cross_entropy_with_logits(logits, processed.float(), reduction="none")
            loss = loss.mean(dim=-1, keepdim=True)
        weights = base_head.get_weights_and_check_match_logits(features, self._weight_column, logits)
        return LossParts(processed, loss, weights)

    # --------------------------------------------------------------------- predictions
    def predictions(self, logits: Any, keys: Any = None) -> dict:
        """Returns `logits`, `probabilities` (sigmoid) and `classes` (or only `keys`)."""
        if keys:
            check_prediction_keys(keys, _VALID_KEYS)
        else:
            keys = _VALID_KEYS
        logits = base_head.check_logits_final_dim(logits, self._n_classes)
        out: dict[str, Any] = {}
        if PredictionKeys.LOGITS in keys:
            out[PredictionKeys.LOGITS] = logits
        if PredictionKeys.PROBABILITIES in keys:
            out[PredictionKeys.PROBABILITIES] = torch.sigmoid(logits)
        if PredictionKeys.CLASSES in keys:
            out[PredictionKeys.CLASSES] = _labels.all_classes(
                (logits.shape[0],), self._n_classes, self._label_vocabulary
            )
        return out

    def _step_predictions(self, logits: torch.Tensor) -> dict:
        return self.predictions(logits, [PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES])

    def _export_outputs(self, predictions: dict) -> dict:
        classifier = ClassificationOutput(scores=predictions[PredictionKeys.PROBABILITIES],
                                          classes=predictions[PredictionKeys.CLASSES])
        return {
            DEFAULT_SERVING_KEY: classifier,
            CLASSIFY_SERVING_KEY: classifier,
            PREDICT_SERVING_KEY: PredictOutput(predictions),
        }

    # --------------------------------------------------------------------- metrics
    def metrics(self, regularization_losses: Any = None) -> dict:
        """Creates the eval metrics (see the class docstring)."""

        key = self._summary_key
        keys = MetricKeys
        out: dict[str, Any] = {
            key(keys.LOSS_MEAN): km.Mean(name=key(keys.LOSS_MEAN)),
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
        for class_id in self._class_ids:
            prob, auc, auc_pr = self._class_metric_keys(class_id)
            out[prob] = km.Mean(name=prob)
            out[auc] = km.AUC(name=auc)
            out[auc_pr] = km.AUC(curve="PR", name=auc_pr)
        return out

    def update_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                       regularization_losses: Any = None) -> dict:
        """Updates the metrics of `metrics()` with one batch; returns `eval_metrics`."""
        return self._update_batch_metrics(eval_metrics, features, logits, labels, regularization_losses)

    def _update_metrics(self, eval_metrics: dict, parts: LossParts, logits: torch.Tensor, labels: Any,
                        regularization_losses: Any) -> dict:
        key = self._summary_key
        keys = MetricKeys
        processed = parts.labels
        probabilities = torch.sigmoid(logits)
        w_loss = broadcast_weights(parts.weights, parts.unweighted_loss)
        w_all = broadcast_weights(parts.weights, probabilities)
        eval_metrics[key(keys.LOSS_MEAN)].update_state(parts.unweighted_loss, sample_weight=w_loss)
        eval_metrics[key(keys.AUC)].update_state(processed, probabilities, sample_weight=w_all)
        eval_metrics[key(keys.AUC_PR)].update_state(processed, probabilities, sample_weight=w_all)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        for t in self._thresholds:
            for template in (keys.ACCURACY_AT_THRESHOLD, keys.PRECISION_AT_THRESHOLD,
                             keys.RECALL_AT_THRESHOLD):
                eval_metrics[key(template % t)].update_state(processed, probabilities, sample_weight=w_all)
        for class_id in self._class_ids:
            prob_key, auc_key, auc_pr_key = self._class_metric_keys(class_id)
            class_probabilities = probabilities[..., class_id:class_id + 1]
            class_labels = processed[..., class_id:class_id + 1]
            w = broadcast_weights(parts.weights, class_probabilities)
            eval_metrics[prob_key].update_state(class_probabilities, sample_weight=w)
            eval_metrics[auc_key].update_state(class_labels, class_probabilities, sample_weight=w)
            eval_metrics[auc_pr_key].update_state(class_labels, class_probabilities, sample_weight=w)
        return eval_metrics
