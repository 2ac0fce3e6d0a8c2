"""Export outputs: what a serving signature returns (`PredictOutput`, `ClassificationOutput`,
`RegressionOutput`), as TF's `tf.estimator.export` classes.

They live with the export format, not in the Estimator, so Keras exports use them too
(`keras` never imports `estimator`); `tf.estimator.export` re-exports them."""

from __future__ import annotations

from typing import Any

import torch

PREDICT_METHOD = "tensorflow/serving/predict"
CLASSIFY_METHOD = "tensorflow/serving/classify"
REGRESS_METHOD = "tensorflow/serving/regress"


class ExportOutput:
    """Base class of the outputs of one serving signature."""

    signature_method = ""

    def as_dict(self) -> dict[str, Any]:
        """Returns the output tensors keyed by their signature output names."""
        raise TypeError(f"{type(self).__name__} does not define its outputs")


class PredictOutput(ExportOutput):
    """The outputs of a `predict` signature: a tensor (keyed 'output') or a dict of tensors."""

    signature_method = PREDICT_METHOD

    def __init__(self, outputs: Any):
        if isinstance(outputs, torch.Tensor):
            outputs = {"output": outputs}
        if not isinstance(outputs, dict) or not all(isinstance(k, str) for k in outputs):
            raise ValueError(
                f"Prediction outputs must be a tensor or a dict of str to tensor; received {outputs!r}"
            )
        self.outputs = dict(outputs)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.outputs)


class ClassificationOutput(ExportOutput):
    """The outputs of a `classify` signature: `scores` (batch, n) and/or `classes` (batch, n) strings."""

    signature_method = CLASSIFY_METHOD

    def __init__(self, scores: Any = None, classes: Any = None):
        if scores is None and classes is None:
            raise ValueError("Classification output must define at least one of scores or classes.")
        self.scores = scores
        self.classes = classes

    def as_dict(self) -> dict[str, Any]:
        out = {}
        if self.classes is not None:
            out["classes"] = self.classes
        if self.scores is not None:
            out["scores"] = self.scores
        return out


class RegressionOutput(ExportOutput):
    """The output of a `regress` signature: one float value per example."""

    signature_method = REGRESS_METHOD

    def __init__(self, value: Any):
        if value is None:
            raise ValueError("Regression output value must be a tensor; received None.")
        self.value = value

    def as_dict(self) -> dict[str, Any]:
        return {"outputs": self.value}


EVAL_METHOD = "tensorflow/supervised/eval"


class EvalOutput(ExportOutput):
    """The outputs of an eval signature (`tf.estimator.export.EvalOutput`): the loss, the
    predictions and the metrics, each keyed under its prefix as TF keys them (`loss` or
    `loss/<key>`, `predictions` or `predictions/<key>`, `metrics/<name>/value` and
    `metrics/<name>/update_op`)."""

    LOSS_NAME = "loss"
    PREDICTIONS_NAME = "predictions"
    METRICS_NAME = "metrics"
    METRIC_VALUE_SUFFIX = "value"
    METRIC_UPDATE_SUFFIX = "update_op"
    _SEPARATOR_CHAR = "/"
    signature_method = EVAL_METHOD

    def __init__(self, loss: Any = None, predictions: Any = None, metrics: Any = None):
        self._loss = self._wrap_and_check_outputs(loss, self.LOSS_NAME)
        self._predictions = self._wrap_and_check_outputs(predictions, self.PREDICTIONS_NAME)
        self._metrics = self._wrap_and_check_metrics(metrics)

    def _wrap_and_check_outputs(self, outputs: Any, single_name: str) -> dict[str, Any] | None:
        if outputs is None:
            return None
        if not isinstance(outputs, dict):
            outputs = {single_name: outputs}
            prefixed = False
        else:
            prefixed = True
        result = {}
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError(f"{single_name} output key must be a string; got {key!r}.")
            if not isinstance(value, torch.Tensor):
                raise ValueError(f"{single_name} output value must be a Tensor; got {value!r}.")
            result[f"{single_name}{self._SEPARATOR_CHAR}{key}" if prefixed else key] = value
        return result

    def _wrap_and_check_metrics(self, metrics: Any) -> dict[str, Any] | None:
        if metrics is None:
            return None
        if not isinstance(metrics, dict):
            raise ValueError(f"metrics must be a dict of name to (value, update_op) or Metric; got {metrics!r}.")
        result = {}
        for key, metric in metrics.items():
            if not isinstance(key, str):
                raise ValueError(f"metrics output key must be a string; got {key!r}.")
            if hasattr(metric, "result"):  # a Keras metric: its result, and nothing left to update
                value, update = metric.result(), metric.result()
            elif isinstance(metric, tuple) and len(metric) == 2:
                value, update = metric
            else:
                raise ValueError(
                    f"metrics[{key!r}] must be a (value, update_op) tuple or a tf.keras.metrics.Metric; "
                    f"got {metric!r}."
                )
            base = f"{self.METRICS_NAME}{self._SEPARATOR_CHAR}{key}{self._SEPARATOR_CHAR}"
            result[base + self.METRIC_VALUE_SUFFIX] = value
            result[base + self.METRIC_UPDATE_SUFFIX] = update
        return result

    @property
    def loss(self) -> dict[str, Any] | None:
        """The loss tensors keyed `loss` or `loss/<key>`."""
        return self._loss

    @property
    def predictions(self) -> dict[str, Any] | None:
        """The prediction tensors keyed `predictions` or `predictions/<key>`."""
        return self._predictions

    @property
    def metrics(self) -> dict[str, Any] | None:
        """The metric tensors keyed `metrics/<name>/value` and `metrics/<name>/update_op`."""
        return self._metrics

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part in (self._loss, self._predictions, self._metrics):
            out.update(part or {})
        return out
