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
