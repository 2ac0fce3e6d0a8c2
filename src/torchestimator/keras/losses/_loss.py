"""`Loss`, the base class of Keras losses, and `LossFunctionWrapper`, a loss made from a function."""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras._registry import serialize_keras_object
from torchestimator.keras.losses import _crossentropy, _regression
from torchestimator.keras.losses._reduction import Reduction
from torchestimator.keras.losses._utils import (
    apply_valid_mask,
    compute_weighted_loss,
    get_mask,
    squeeze_or_expand_dimensions,
    to_float_tensor,
    to_tensor,
)

#: `tf.keras.losses.get`, which `losses/_lookup.py` registers when it loads (`keras.losses`'s
#: `__init__` loads it, so it is there before any config is read): a plain wrapper's config
#: names its function, and the function table lives above this module.
_GET_FUNCTION: list[Callable[[Any], Any]] = []


def register_function_lookup(get: Callable[[Any], Any]) -> None:
    """Registers `get(name)`, the function by its name, for `LossFunctionWrapper.from_config`."""
    _GET_FUNCTION[:] = [get]


class Loss(abc.ABC):
    """Loss base class.

    Subclasses implement `call(y_true, y_pred)`, returning one loss value per
    sample; calling the instance, `loss(y_true, y_pred, sample_weight=None)`,
    weights those values and reduces them as `reduction` says ('auto' and
    'sum_over_batch_size': the weighted sum divided by the number of values;
    'sum'; 'none': the per-sample values).

    ```python
    class MeanSquaredError(tf.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return torch.mean(torch.square(y_pred - y_true), dim=-1)
    ```
    """

    def __init__(self, reduction: str = Reduction.AUTO, name: str | None = None):
        Reduction.validate(reduction)
        self.reduction = reduction
        self.name = name
        self._allow_sum_over_batch_size = False
        self._name_scope = self._make_name_scope()

    def _make_name_scope(self) -> str:
        if self.name is None:
            return self.__class__.__name__.strip("_")
        if self.name == "<lambda>":
            return "lambda"
        return self.name.strip("_")

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> torch.Tensor:
        """Computes the weighted, reduced loss of a batch.

        `sample_weight` is a scalar, one weight per sample (`[batch_size]`) or a
        weight per loss element (`[batch_size, d0, .. dN-1]`, or broadcastable
        to it). Returns a scalar tensor, or the per-sample losses of shape
        `[batch_size, d0, .. dN-1]` when `reduction` is 'none'.
        """
        if not (type(y_pred) is torch.Tensor and type(y_true) is torch.Tensor
                and y_pred.is_floating_point() and y_true.device == y_pred.device):
            y_pred = to_float_tensor(y_pred)  # tensors already so (the training loop's) stay
            y_true = to_tensor(y_true, device=y_pred.device)
        return self._reduce(self.call(y_true, y_pred), y_pred, sample_weight)

    def _reduce(self, losses: Any, y_pred: torch.Tensor, sample_weight: Any) -> torch.Tensor:
        """Weights and reduces the per-sample `losses` (masked by their or `y_pred`'s Keras mask)."""
        if not isinstance(losses, torch.Tensor):
            losses = to_float_tensor(losses, device=y_pred.device)
        in_mask, out_mask = get_mask(y_pred), get_mask(losses)
        if in_mask is not None and out_mask is not None:
            mask = in_mask & out_mask
        else:
            mask = in_mask if in_mask is not None else out_mask
        reduction = self._get_reduction()
        if mask is not None:
            sample_weight = apply_valid_mask(losses, sample_weight, mask, reduction)
        return compute_weighted_loss(losses, sample_weight, reduction, name=self._name_scope)

    @abc.abstractmethod
    def call(self, y_true: torch.Tensor, y_pred: torch.Tensor) -> torch.Tensor:
        """Returns the per-sample loss values, of shape `[batch_size, d0, .. dN-1]`.

        Every subclass overrides this method (it is abstract).
        """

    def _get_reduction(self) -> str:
        """Returns the reduction to apply: 'auto' means 'sum_over_batch_size'."""
        if self.reduction == Reduction.AUTO:
            return Reduction.SUM_OVER_BATCH_SIZE
        return self.reduction

    def get_config(self) -> dict[str, Any]:
        """Returns the config dictionary of the loss: `{'reduction', 'name'}` plus its arguments."""
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """Instantiates a loss from its config (the output of `get_config()`)."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items() if k != "fn")
        return f"{type(self).__name__}({args})"


def _elementwise_mean(kernel: Callable) -> Callable:
    """The batch mean of a loss that is the mean over the last axis of an elementwise error: for
    same-shaped tensors of one dtype the mean of each sample's mean is the mean over every
    element, one `kernel` (`F.mse_loss`, `F.l1_loss`)."""
    def batch_mean(y_true: torch.Tensor, y_pred: torch.Tensor, **kwargs: Any) -> torch.Tensor | None:
        if kwargs or not y_pred.ndim or not y_pred.numel() or y_true.shape != y_pred.shape \
                or y_true.dtype != y_pred.dtype:
            return None
        return kernel(y_pred, y_true)
    return batch_mean


#: Loss functions with a one-kernel mean over the batch for some inputs: `mean(y_true, y_pred,
#: **kwargs)` returns it, or None when the function itself must run.
_BATCH_MEANS: dict[Callable, Callable] = {
    _regression.mean_squared_error: _elementwise_mean(F.mse_loss),
    _regression.mean_absolute_error: _elementwise_mean(F.l1_loss),
    _crossentropy.categorical_crossentropy: _crossentropy.categorical_crossentropy_batch_mean,
    _crossentropy.binary_crossentropy: _crossentropy.binary_crossentropy_batch_mean,
    _crossentropy.sparse_categorical_crossentropy: _crossentropy.sparse_categorical_crossentropy_batch_mean,
}


def _fn_name(fn: Any) -> Any:
    """Returns a serializable reference to `fn`: its registered name (or its config)."""
    if hasattr(fn, "get_config") and not isinstance(fn, type):
        return serialize_keras_object(fn)
    return getattr(fn, "_registered_name", None) or getattr(fn, "__name__", None)


class LossFunctionWrapper(Loss):
    """Wraps a loss function `fn(y_true, y_pred, **kwargs)` in the `Loss` class.

    Labels and predictions are aligned first (a trailing size-1 axis squeezed,
    as Keras does); `kwargs` are passed on to `fn` on every call.
    """

    def __init__(
        self, fn: Callable, reduction: str = Reduction.AUTO, name: str | None = None, **kwargs: Any
    ):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> torch.Tensor:
        """Computes the weighted, reduced loss of a batch (see `Loss.__call__`).

        Unweighted and reduced over the batch, mean squared and mean absolute error over
        same-shaped float tensors and the crossentropies over known logits are one torch kernel
        (`_BATCH_MEANS`).
        """
        if (
            sample_weight is None and type(y_pred) is torch.Tensor and type(y_true) is torch.Tensor
            and y_pred.ndim == y_true.ndim and y_pred.is_floating_point()
            and y_true.device == y_pred.device and get_mask(y_pred) is None
            and self._get_reduction() == Reduction.SUM_OVER_BATCH_SIZE
            and type(self).call is LossFunctionWrapper.call
        ):
            # fit's case with any loss function (W3's Python one): labels of the predictions'
            # rank (nothing to squeeze or expand), no weights, no mask: the mean of `fn`'s values
            batch_mean = _BATCH_MEANS.get(self.fn)
            if batch_mean is not None:
                value = batch_mean(y_true, y_pred, **self._fn_kwargs)
                if value is not None:
                    return value
            losses = self.fn(y_true, y_pred, **self._fn_kwargs)
            if (type(losses) is torch.Tensor and losses.is_floating_point()
                    and get_mask(losses) is None and losses.numel()):
                return losses.mean()
            return self._reduce(losses, y_pred, None)
        return super().__call__(y_true, y_pred, sample_weight)

    def call(self, y_true: torch.Tensor, y_pred: torch.Tensor) -> torch.Tensor:
        """Returns `fn(y_true, y_pred, **kwargs)`, the per-sample losses."""
        if isinstance(y_true, torch.Tensor) and isinstance(y_pred, torch.Tensor):
            y_pred, y_true = squeeze_or_expand_dimensions(y_pred, y_true)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        """Returns `{'reduction', 'name'}` plus the function's keyword arguments.

        A plain `LossFunctionWrapper` also records the function under `fn`.
        """
        config = dict(super().get_config())
        for key, value in self._fn_kwargs.items():
            if isinstance(value, torch.Tensor):
                value = value.tolist()
            config[key] = value
        if type(self) is LossFunctionWrapper:
            config["fn"] = _fn_name(self.fn)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """Instantiates the loss from its config; `fn` is looked up by name for the base class."""
        config = dict(config)
        fn = config.pop("fn", None)
        if cls is LossFunctionWrapper:
            if fn is None:
                raise ValueError("LossFunctionWrapper config needs 'fn', the loss function's name.")
            return cls(_GET_FUNCTION[0](fn), **config)
        return cls(**config)
