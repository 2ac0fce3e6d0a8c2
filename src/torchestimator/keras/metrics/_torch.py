"""PyTorch metrics in Keras' `compile(metrics=[...])`.

`TorchMetric` runs a torchmetrics `Metric` as a Keras metric (`update(preds, target)`,
`compute()`, `reset()`); a torch loss given as a metric becomes the mean of its values over the
epoch. Both receive the labels as they are (class ids stay class ids), predictions first.
"""

from __future__ import annotations

import sys
from typing import Any

import torch

from torchestimator.keras.losses._torch import from_torch as _loss_from_torch
from torchestimator.keras.metrics._metric import Metric, _snake_case
from torchestimator.keras.metrics._reduce import Mean


def is_torchmetric(obj: Any) -> bool:
    """Whether `obj` is a torchmetrics `Metric` (or `MetricCollection`) instance; torchmetrics
    is not imported to answer (an object of it exists only once it was)."""
    module = sys.modules.get("torchmetrics")
    if module is None:
        return False
    kinds = tuple(k for k in (getattr(module, "Metric", None),
                              getattr(module, "MetricCollection", None)) if k is not None)
    return bool(kinds) and isinstance(obj, kinds)


class TorchMetric(Metric):
    """A torchmetrics `Metric` used as a Keras metric.

    `update_state(y_true, y_pred)` calls `metric.update(y_pred, y_true)` (torchmetrics' order,
    labels as they are), `result()` is `metric.compute()` and `reset_state()` is
    `metric.reset()`. The torchmetrics object moves to the device of the data it receives. Its
    name in logs and History is `name`, else the metric's own `name` attribute when it is a
    string, else its class name in snake case (`MulticlassAccuracy` -> 'multiclass_accuracy').
    A `MetricCollection` logs each of its values under its own key. torchmetrics take no sample
    weights: use them in `metrics=`, not `weighted_metrics=`.
    """

    #: `compile` gives this metric the labels as they are (no Keras rank alignment).
    _torch_order = True

    def __init__(self, metric: Any, name: str | None = None):
        if not is_torchmetric(metric):
            raise TypeError(
                f"TorchMetric(metric): metric must be a torchmetrics.Metric instance; received "
                f"{metric!r}."
            )
        own = getattr(metric, "name", None)
        super().__init__(name=name or (own if isinstance(own, str) and own else
                                       _snake_case(type(metric).__name__)))
        self.metric = metric
        self._device = getattr(metric, "device", self._device)

    def _move_state(self, device: torch.device) -> None:
        self.metric.to(device)
        self._device = device

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulates a batch: `metric.update(y_pred, y_true)`."""
        if sample_weight is not None:
            raise ValueError(
                f"The torchmetrics metric {self.name!r} received sample weights (it is in "
                "`weighted_metrics`, or the output has a Keras mask); torchmetrics take no sample "
                "weights. Put it in compile(metrics=[...]) and leave the mask out."
            )
        self.metric.update(y_pred, y_true)

    def result(self) -> Any:
        """`metric.compute()`: a tensor, or a dict of them for a `MetricCollection`."""
        return self.metric.compute()

    def reset_state(self) -> None:
        """`metric.reset()` (called at the start of every epoch and evaluation)."""
        self.metric.reset()

    def get_config(self) -> dict[str, Any]:
        """Returns `{'name'}`; the torchmetrics object itself is not serialized."""
        return {"name": self.name}


class TorchLossMetric(Mean):
    """The mean over the samples seen of a torch loss (`torch.nn.MSELoss()`, a function
    `fn(input, target)`): each batch's value, `loss(y_pred, y_true)` with the labels as they
    are, weighted by the batch size."""

    #: `compile` gives this metric the labels as they are (no Keras rank alignment).
    _torch_order = True

    def __init__(self, loss: Any, name: str | None = None):
        self.loss = _loss_from_torch(loss)
        super().__init__(name=name or _snake_case(self.loss.name))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's loss (weighted by `sample_weight` when given), counted once per
        sample."""
        value = self.loss(y_true, y_pred, sample_weight)
        batch = y_pred.shape[0] if isinstance(y_pred, torch.Tensor) and y_pred.ndim else 1
        super().update_state(value, sample_weight=batch)


def from_torch(metric: Any, name: str | None = None) -> Metric:
    """Makes a Keras metric of a PyTorch one, named `name`.

    `metric` is a torchmetrics `Metric` (a `TorchMetric`: `update(preds, target)`,
    `compute()`, `reset()`) or a torch loss (a `torch.nn` loss module, or a function
    `fn(input, target)`: the mean of its values). `compile(metrics=[...])` recognises
    torchmetrics objects and `torch.nn` loss modules by themselves; use this to name them, or
    for a function in torch's order:

        model.compile("adam", "mse", metrics=[tf.keras.metrics.from_torch(
            torchmetrics.MeanAbsoluteError(), name="mae")])

    Returns the Keras metric.
    """
    if isinstance(metric, TorchMetric):
        return metric if name is None else TorchMetric(metric.metric, name=name)
    if is_torchmetric(metric):
        return TorchMetric(metric, name=name)
    if callable(metric) and not isinstance(metric, Metric):
        return TorchLossMetric(metric, name=name)
    raise TypeError(
        f"metrics.from_torch(metric): metric must be a torchmetrics.Metric, a torch.nn loss "
        f"module or a function fn(input, target); received {metric!r}."
    )
