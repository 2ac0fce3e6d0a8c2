"""PyTorch losses in Keras' `compile(loss=...)`: `TorchLoss` calls a loss in torch's argument
order, `fn(input, target)` (predictions first), where Keras calls `loss(y_true, y_pred)`.

`compile` recognises a `torch.nn` loss module (any `torch.nn.Module` given as a loss) and the
functions of `torch.nn.functional` by themselves; `from_torch(fn)` says it of any other callable.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch

from torchestimator.keras.losses._loss import Loss
from torchestimator.keras.losses._reduction import Reduction
from torchestimator.keras.losses._utils import compute_weighted_loss

#: A torch loss module's `reduction` as the Keras reduction of its per-sample values.
_KERAS_REDUCTION = {
    "mean": Reduction.SUM_OVER_BATCH_SIZE,
    "sum": Reduction.SUM,
    "none": Reduction.NONE,
}


class TorchLoss(Loss):
    """A loss that takes torch's argument order: `fn(y_pred, y_true)` (`input`, `target`).

    Calling it as a Keras loss, `loss(y_true, y_pred, sample_weight=None)`, calls
    `fn(y_pred, y_true)`; the labels reach `fn` as they are (class ids for `CrossEntropyLoss`
    stay class ids), only float labels are cast to the predictions' float dtype. Without
    `sample_weight` the value is `fn`'s own. With `sample_weight` (or `class_weight`), a
    `torch.nn` loss module is computed with `reduction='none'` and its per-sample values
    weighted, then reduced as its `reduction` says ('mean': the weighted sum over the number
    of values, as Keras; 'sum'); a function must return per-sample values to be weighted.
    A function returning per-sample values is reduced to their (weighted) mean.
    """

    #: `compile` gives this loss the labels as they are (no Keras rank alignment).
    _torch_order = True

    def __init__(self, fn: Callable, name: str | None = None):
        if not callable(fn):
            raise TypeError(
                f"from_torch(fn): fn must be a torch loss module or a function fn(input, target); "
                f"received {fn!r}."
            )
        super().__init__(reduction=Reduction.AUTO, name=name or _default_name(fn))
        self.fn = fn
        self._unreduced: Any = None  # `fn` with reduction='none', made for the first weights
        # a loss module's buffers (class weights) follow the predictions' device
        self._device = None if isinstance(fn, torch.nn.Module) else False

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> torch.Tensor:
        """Returns `fn(y_pred, y_true)` (weighted by `sample_weight` when given)."""
        if (type(y_true) is torch.Tensor and y_true.is_floating_point()
                and type(y_pred) is torch.Tensor and y_true.dtype != y_pred.dtype
                and y_pred.is_floating_point()):
            y_true = y_true.to(y_pred.dtype)
        if self._device is not False and self._device != y_pred.device:
            self.fn.to(y_pred.device)
            self._device = y_pred.device
        if sample_weight is None:
            value = self.fn(y_pred, y_true)
            return value if value.ndim == 0 else value.mean()
        return self._weighted(y_true, y_pred, sample_weight)

    def _weighted(self, y_true: Any, y_pred: Any, sample_weight: Any) -> torch.Tensor:
        """The loss of a weighted batch: per-sample values times `sample_weight`, reduced."""
        fn, reduction = self.fn, Reduction.SUM_OVER_BATCH_SIZE
        own = getattr(fn, "reduction", None)
        if isinstance(fn, torch.nn.Module) and own in _KERAS_REDUCTION:
            reduction = _KERAS_REDUCTION[own]
            if own != "none":
                if self._unreduced is None:
                    self._unreduced = copy.copy(fn)  # shares fn's weights and buffers
                    self._unreduced.reduction = "none"
                fn = self._unreduced
        values = fn(y_pred, y_true)
        if values.ndim == 0:
            raise ValueError(
                f"The torch loss {self.name!r} returned one value for the batch, so it cannot "
                "weigh samples (sample_weight or class_weight was given). Pass a torch.nn loss "
                "module, or a function returning one value per sample (e.g. "
                "from_torch(lambda input, target: F.cross_entropy(input, target, reduction='none')))."
            )
        return compute_weighted_loss(values, sample_weight, reduction, name=self.name)

    def call(self, y_true: torch.Tensor, y_pred: torch.Tensor) -> torch.Tensor:
        """Returns `fn(y_pred, y_true)`."""
        return self.fn(y_pred, y_true)

    def get_config(self) -> dict[str, Any]:
        """Returns `{'name'}`; the torch loss itself is not serialized (recompile to restore it)."""
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """Not supported: a torch loss is Python code; compile the model with it again."""
        raise ValueError(
            f"A TorchLoss ({config.get('name')!r}) cannot be restored from a config: compile the "
            "model again with the torch loss."
        )


def _default_name(fn: Any) -> str:
    """A loss module's class name (`'CrossEntropyLoss'`), else the function's `__name__`."""
    if isinstance(fn, torch.nn.Module):
        return type(fn).__name__
    return getattr(fn, "__name__", None) or type(fn).__name__


def from_torch(fn: Callable, name: str | None = None) -> TorchLoss:
    """Marks a loss that takes torch's argument order, `fn(input, target)`, for Keras.

    Keras calls a loss as `loss(y_true, y_pred)`; PyTorch losses take the predictions first.
    `compile` recognises `torch.nn` loss modules (`torch.nn.CrossEntropyLoss()`, ...) and the
    functions of `torch.nn.functional` by themselves; wrap any other function written in
    torch's order:

        model.compile("adam", loss=tf.keras.losses.from_torch(my_loss))  # my_loss(input, target)

    Returns a `TorchLoss`, a Keras `Loss` named `name` (default: the module's class name or
    the function's name) that calls `fn(y_pred, y_true)` with the labels as they are.
    """
    if isinstance(fn, TorchLoss):
        return fn if name is None else TorchLoss(fn.fn, name=name)
    return TorchLoss(fn, name=name)


def is_torch_loss(obj: Any) -> bool:
    """Whether `compile` calls `obj` in torch's order: a `torch.nn.Module` (a loss module) or
    a function of `torch.nn.functional` (`F.cross_entropy`, ...)."""
    if isinstance(obj, torch.nn.Module):
        return True
    return callable(obj) and getattr(obj, "__module__", None) == "torch.nn.functional"
