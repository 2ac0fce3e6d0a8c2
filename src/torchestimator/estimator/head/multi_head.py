"""`MultiHead`: several named heads trained together (multi-objective learning)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.estimator._lazy_predictions import LazyPredictions
from torchestimator.estimator.estimator_spec import EstimatorSpec
from torchestimator.estimator.head import base_head
from torchestimator.estimator.head.keys import DEFAULT_SERVING_KEY, PREDICT_SERVING_KEY, MetricKeys
from torchestimator.estimator.mode_keys import ModeKeys, check_mode
from torchestimator.saved_model._export_output import PredictOutput


class MultiHead(base_head.Head):
    """Creates a `Head` for multi-objective learning.

    The loss is the (weighted) sum of the heads' training losses. Labels are a
    dict keyed by head name; logits are a dict keyed by head name or one
    tensor `[D0, ... DN, logits_dimension]` split along its last dimension in
    the order of `heads`. Metric keys are suffixed with `/<head name>` (and
    `loss/<head name>` holds each head's training loss). The first head is
    served by default (`serving_default`); every head's signatures are exported
    as `<head name>` and `<head name>/<signature>`, and `predict` merges all
    predictions as `<head name>/<key>`.

    Predictions are keyed `'<head name>/<key>'` (TF keys them by the tuple
    `(head name, key)` in `predictions()` and by the string in its `predict`
    signature; here both use the string, since prediction keys are strings).

    Args:
      heads: List or tuple of `Head` instances, each with a `name`. The first
        head is the default used at serving time.
      head_weights: Optional list of weights, same length as `heads`, used to
        weigh the heads' losses in the sum. If `None`, all weigh 1.
    """

    def __init__(self, heads: Any, head_weights: Any = None):
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights:
            if len(head_weights) != len(heads):
                raise ValueError(
                    "heads and head_weights must have the same size. Given len(heads): "
                    f"{len(heads)}. Given len(head_weights): {len(head_weights)}."
                )
        names = []
        for head in heads:
            if not isinstance(head, base_head.Head):
                raise ValueError(f"heads must be Head instances; given {head!r}.")
            if head.name is None:
                raise ValueError(f"All given heads must have name specified. Given: {head}")
            names.append(head.name)
        if len(set(names)) != len(names):
            raise ValueError(f"Head names must be unique; given {names}.")
        self._heads = tuple(heads)
        self._head_weights = tuple(float(w) for w in head_weights) if head_weights else ()
        self._logits_dimension = sum(head.logits_dimension for head in heads)
        self._loss_keys = tuple(f"{MetricKeys.LOSS}/{head.name}" for head in heads)

    @property
    def name(self) -> str:
        """The heads' names joined by '_'."""
        return "_".join(h.name for h in self._heads)

    @property
    def logits_dimension(self) -> int:
        """The sum of the heads' logits dimensions."""
        return self._logits_dimension

    @property
    def loss_reduction(self) -> str:
        """The heads' common loss reduction (ValueError if they differ)."""
        reductions = [head.loss_reduction for head in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError(f"The loss_reduction must be the same for different heads. Given: {reductions}")
        return reductions[0]

    def _summary_key(self, key: str) -> str:
        return key

    def _split_logits(self, logits: Any) -> dict:
        logits = base_head.check_logits_final_dim(logits, self._logits_dimension)
        out, begin = {}, 0
        for head in self._heads:
            out[head.name] = logits[..., begin:begin + head.logits_dimension]
            begin += head.logits_dimension
        return out

    def _check_logits_and_labels(self, logits: Any, labels: Any = None) -> dict:
        names = [h.name for h in self._heads]
        if isinstance(logits, dict):
            missing = [n for n in names if n not in logits]
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            logits_dict = logits
        else:
            if not isinstance(logits, torch.Tensor):
                logits = torch.as_tensor(logits)
            if logits.shape[-1] != self._logits_dimension:
                raise ValueError(
                    f"Could not split logits of shape {tuple(logits.shape)} among the heads with "
                    f"individual logits dimensions: {[h.logits_dimension for h in self._heads]}. The "
                    f"last dimension of the logits tensor should equal {self._logits_dimension} but "
                    f"is {logits.shape[-1]}."
                )
            logits_dict = self._split_logits(logits)
        if labels is not None:
            if not isinstance(labels, dict):
                raise ValueError(f"labels must be a dict keyed by head name. Given: {type(labels).__name__}")
            missing = [n for n in names if n not in labels]
            if missing:
                raise ValueError(f"labels has missing values for head(s): {missing}")
        return logits_dict

    def _merge(self, losses: list[torch.Tensor], regularization_losses: Any) -> torch.Tensor:
        if self._head_weights:
            losses = [loss * w for loss, w in zip(losses, self._head_weights)]
        total = losses[0]
        for loss in losses[1:]:
            total = total + loss
        if regularization_losses is not None:
            total = total + base_head.add_n(regularization_losses).to(total.device)
        return total

    def loss(self, labels: Any, logits: Any, features: Any = None, mode: str | None = None,
             regularization_losses: Any = None) -> torch.Tensor:
        """Returns the weighted sum of the heads' training losses (+ regularization)."""
        logits_dict = self._check_logits_and_labels(logits, labels)
        losses = [head.loss(labels[head.name], logits_dict[head.name], features, mode)
                  for head in self._heads]
        return self._merge(losses, regularization_losses)

    def predictions(self, logits: Any, keys: Any = None) -> dict:
        """Returns every head's predictions keyed `'<head name>/<key>'`."""
        logits_dict = self._check_logits_and_labels(logits)
        out = {}
        for head in self._heads:
            for k, v in head.predictions(logits_dict[head.name]).items():
                out[f"{head.name}/{k}"] = v
        return out

    def metrics(self, regularization_losses: Any = None) -> dict:
        """Creates `loss/<head name>` means (and `regularization_loss`); the heads' own metrics
        are added by `update_metrics`."""
        out = {}
        if regularization_losses is not None:
            out[MetricKeys.LOSS_REGULARIZATION] = self._mean_metric(MetricKeys.LOSS_REGULARIZATION)
        for key in self._loss_keys:
            out[key] = self._mean_metric(key)
        return out

    def update_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                       regularization_losses: Any = None) -> dict:
        """Updates the loss metrics and each head's metrics; returns all of them in one dict."""
        logits_dict = self._check_logits_and_labels(logits, labels)
        self._update_all(eval_metrics, features, logits_dict, labels, regularization_losses)
        return eval_metrics

    def _update_all(self, eval_metrics: dict, features: Any, logits_dict: dict, labels: dict,
                    regularization_losses: Any) -> list[torch.Tensor]:
        if regularization_losses is not None:
            eval_metrics[MetricKeys.LOSS_REGULARIZATION].update_state(
                values=base_head.add_n(regularization_losses))
        losses = []
        for head, loss_key in zip(self._heads, self._loss_keys):
            head_logits = base_head.check_logits_final_dim(logits_dict[head.name], head.logits_dimension)
            parts = head._loss_parts(head_logits, labels[head.name], features)
            training_loss = head._training_loss(parts, None)
            losses.append(training_loss)
            eval_metrics[loss_key].update_state(values=training_loss)
            head_metrics = head.metrics()
            head._update_metrics(head_metrics, parts, head_logits, labels[head.name], None)
            eval_metrics.update(head_metrics)
        return losses

    def _merged_export_outputs(self, logits_dict: dict) -> dict:
        outputs: dict[str, Any] = {}
        merged_predict: dict[str, Any] = {}
        for index, head in enumerate(self._heads):
            head_outputs = head._export_outputs(head.predictions(logits_dict[head.name]))
            if index == 0:
                outputs[DEFAULT_SERVING_KEY] = head_outputs[DEFAULT_SERVING_KEY]
            for k, v in head_outputs.items():
                outputs[head.name if k == DEFAULT_SERVING_KEY else f"{head.name}/{k}"] = v
                if k == PREDICT_SERVING_KEY and isinstance(v, PredictOutput):
                    for kp, vp in v.outputs.items():
                        merged_predict[f"{head.name}/{kp}"] = vp
        outputs[PREDICT_SERVING_KEY] = PredictOutput(merged_predict)
        return outputs

    def create_estimator_spec(self, features: Any, mode: str, logits: Any, labels: Any = None,
                              optimizer: Any = None, trainable_variables: Any = None,
                              train_op_fn: Any = None, update_ops: Any = None,
                              regularization_losses: Any = None) -> EstimatorSpec:
        """Returns the merged `EstimatorSpec` of all heads for `mode` (see `Head`)."""
        check_mode(mode)
        if mode == ModeKeys.PREDICT:
            logits_dict = self._check_logits_and_labels(logits)
            return EstimatorSpec(mode=mode, predictions=self.predictions(logits_dict),
                                 export_outputs=self._merged_export_outputs(logits_dict))
        logits_dict = self._check_logits_and_labels(logits, labels)

        def all_step_predictions() -> dict:
            merged = {}
            for head in self._heads:
                for k, v in head._step_predictions(
                        base_head.check_logits_final_dim(logits_dict[head.name], head.logits_dimension)).items():
                    merged[f"{head.name}/{k}"] = v
            return merged

        step_predictions = LazyPredictions(all_step_predictions)
        if mode == ModeKeys.EVAL:
            eval_metrics = self.metrics(regularization_losses=regularization_losses)
            losses = self._update_all(eval_metrics, features, logits_dict, labels, regularization_losses)
            loss = self._merge(losses, regularization_losses)
            return EstimatorSpec(mode=mode, predictions=step_predictions, loss=loss,
                                 eval_metric_ops=eval_metrics)
        loss = self.loss(labels, logits_dict, features, mode, regularization_losses)
        train_op = base_head.create_estimator_spec_train_op(
            self.name, optimizer=optimizer, trainable_variables=trainable_variables,
            train_op_fn=train_op_fn, update_ops=update_ops, regularized_training_loss=loss,
            loss_reduction=self.loss_reduction,
        )
        base_head.create_estimator_spec_summary(loss, regularization_losses)
        return EstimatorSpec(mode=mode, predictions=step_predictions, loss=loss, train_op=train_op)
