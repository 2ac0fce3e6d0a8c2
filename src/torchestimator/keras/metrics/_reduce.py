"""Reducing metrics: `Sum`, `Mean`, `MeanMetricWrapper` (a mean of a function's values), `MeanTensor`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from torchestimator.keras._registry import serialize_keras_object
from torchestimator.keras.engine import one_hot_labels
from torchestimator.keras.losses._utils import (
    apply_valid_mask,
    broadcast_weights,
    div_no_nan,
    get_mask,
    shape_of,
    squeeze_or_expand_dimensions,
    to_tensor,
)
from torchestimator.keras.metrics._functions import categorical_accuracy, sparse_categorical_matches
from torchestimator.keras.metrics._metric import Metric

#: `tf.keras.metrics.get`, which `metrics/_lookup.py` registers when it loads (`keras.metrics`'s
#: `__init__` loads it, so it is there before any config is read): a plain wrapper's config
#: names its function, and the function table lives above this module.
_GET_FUNCTION: list[Callable[[Any], Any]] = []


def register_function_lookup(get: Callable[[Any], Any]) -> None:
    """Registers `get(name)`, the function by its name, for `MeanMetricWrapper.from_config`."""
    _GET_FUNCTION[:] = [get]


class MetricReduction:
    """Types of metrics reduction: 'sum', 'sum_over_batch_size', 'weighted_mean'."""

    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    WEIGHTED_MEAN = "weighted_mean"


def _weighted_values(metric: Metric, values: torch.Tensor, sample_weight: Any, reduction: str):
    """Broadcasts `sample_weight` onto `values` as Keras' `Reduce` does; returns both."""
    sample_weight = to_tensor(sample_weight, dtype=values.dtype, device=values.device)
    values, _, sample_weight = squeeze_or_expand_dimensions(values, None, sample_weight)
    try:
        sample_weight = broadcast_weights(sample_weight, values)
    except ValueError:
        dims = list(range(sample_weight.dim(), values.dim()))
        if dims:
            values = values.sum(dims) if reduction == MetricReduction.SUM else values.mean(dims)
    try:
        values = values * sample_weight
    except RuntimeError:
        raise ValueError(
            f"{metric.name}: sample_weight of shape {shape_of(sample_weight)} cannot be broadcast "
            f"to the metric values of shape {shape_of(values)}."
        ) from None
    return values, sample_weight


class Reduce(Metric):
    """Encapsulates metrics that perform a reduce operation on the values.

    Args:
      reduction: 'sum', 'sum_over_batch_size' or 'weighted_mean'.
      name: string name of the metric instance.
      dtype: (Optional) data type of the metric result.
    """

    def __init__(self, reduction: str, name: str | None, dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        if reduction not in (MetricReduction.SUM, MetricReduction.SUM_OVER_BATCH_SIZE,
                             MetricReduction.WEIGHTED_MEAN):
            raise ValueError(
                f'Reduction "{reduction}" not implemented. Expected "sum", "weighted_mean", or '
                '"sum_over_batch_size".'
            )
        self.reduction = reduction
        self.total = self.add_weight("total", initializer="zeros")
        if reduction != MetricReduction.SUM:
            self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Accumulates `values` (weighted by `sample_weight`, default 1) into the state."""
        if isinstance(values, dict):
            raise RuntimeError(
                f"The output of a metric function can only be a single Tensor. Received: {values}. "
                "To return a dict of values, implement a custom Metric subclass."
            )
        if (
            type(sample_weight) in (int, float)
            and isinstance(values, torch.Tensor)
            and values.dtype == self._torch_dtype
            and values.device == self.total.device
        ):  # the loss tracker's case: one cheap path, no conversions
            with torch.no_grad():
                self.total.add_((values if values.ndim == 0 else values.sum()) * sample_weight)
                if self.reduction == MetricReduction.WEIGHTED_MEAN:
                    self.count.add_(float(sample_weight) * values.numel())
                elif self.reduction == MetricReduction.SUM_OVER_BATCH_SIZE:
                    self.count.add_(float(values.numel()))
            return
        values = to_tensor(values, dtype=self._torch_dtype, device=self._device)
        if isinstance(sample_weight, (int, float)) and not isinstance(sample_weight, bool):
            # A scalar weight broadcasts to every value.
            self.total.assign_add(values.sum() * sample_weight)
            if self.reduction == MetricReduction.WEIGHTED_MEAN:
                self.count.assign_add(float(sample_weight) * values.numel())
            elif self.reduction == MetricReduction.SUM_OVER_BATCH_SIZE:
                self.count.assign_add(float(values.numel()))
            return
        if sample_weight is not None:
            values, sample_weight = _weighted_values(self, values, sample_weight, self.reduction)
        self.total.assign_add(values.sum())
        if self.reduction == MetricReduction.SUM:
            return
        if self.reduction == MetricReduction.WEIGHTED_MEAN and sample_weight is not None:
            self.count.assign_add(sample_weight.sum())
        else:
            self.count.assign_add(float(values.numel()))

    def result(self) -> torch.Tensor:
        """Returns the total ('sum') or total / count (the means)."""
        if self.reduction == MetricReduction.SUM:
            return self.total
        # 0 where nothing was counted (Keras' divide_no_nan); a NaN total stays NaN
        return div_no_nan(self.total, self.count)


class Sum(Reduce):
    """Computes the (weighted) sum of the given values.

    For example, if values is [1, 3, 5, 7] then the sum is 16; with weights
    [1, 1, 0, 0] it is 4. State: one variable, `total`.
    """

    def __init__(self, name: str = "sum", dtype: Any = None):
        super().__init__(reduction=MetricReduction.SUM, name=name, dtype=dtype)


class Mean(Reduce):
    """Computes the (weighted) mean of the given values.

    For example, if values is [1, 3, 5, 7] then the mean is 4; with weights
    [1, 1, 0, 0] it is 2. State: `total` and `count`; `result()` is
    `total / count` (0 when nothing was counted).
    """

    def __init__(self, name: str = "mean", dtype: Any = None):
        super().__init__(reduction=MetricReduction.WEIGHTED_MEAN, name=name, dtype=dtype)


class SumOverBatchSize(Reduce):
    """Computes the weighted sum of the values divided by their number (weights do not count)."""

    def __init__(self, name: str = "sum_over_batch_size", dtype: Any = None):
        super().__init__(reduction=MetricReduction.SUM_OVER_BATCH_SIZE, name=name, dtype=dtype)


def _fn_reference(fn: Any) -> Any:
    """Returns how a wrapped function is written into a config: its registered name or config."""
    if hasattr(fn, "get_config") and not isinstance(fn, type):
        return serialize_keras_object(fn)
    return getattr(fn, "_registered_name", None) or getattr(fn, "__name__", None)


#: Integers up to this are float32 values exactly.
_FLOAT32_EXACT = 2**24


def _are_class_ids(labels: torch.Tensor) -> bool:
    """Whether `labels` hold integer class ids (an integer or bool dtype)."""
    return not (labels.is_floating_point() or labels.is_complex())


class MeanMetricWrapper(Mean):
    """Wraps a stateless metric function with the Mean metric.

    `fn(y_true, y_pred, **kwargs)` returns one value per sample;
    `result()` is the (weighted) average of those values over all samples seen.

    Args:
      fn: The metric function to wrap, with signature `fn(y_true, y_pred, **kwargs)`.
      name: (Optional) string name of the metric instance.
      dtype: (Optional) data type of the metric result.
      **kwargs: Keyword arguments to pass on to `fn`.
    """

    def __init__(self, fn: Callable, name: str | None = None, dtype: Any = None, **kwargs: Any):
        if not callable(fn):
            raise ValueError(f"MeanMetricWrapper: fn must be callable; received {fn!r}")
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Accumulates `fn(y_true, y_pred)`, weighted by `sample_weight` (default 1)."""
        if sample_weight is None and self._update_plain(y_true, y_pred):
            return
        y_true = to_tensor(y_true, dtype=self._torch_dtype, device=self._device)
        y_pred = to_tensor(y_pred, dtype=self._torch_dtype, device=self._device)
        y_pred, y_true = squeeze_or_expand_dimensions(y_pred, y_true)
        self._accumulate(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)

    def _update_plain(self, y_true: Any, y_pred: Any) -> bool:
        """The training loop's case (`fit` each step), without weights: plain tensors of the
        metric's dtype on its device, labels of the predictions' rank (so no squeeze or expand).
        Adds the matches' sum and count directly and returns True; False (nothing done) for
        anything else. Runs under `torch.no_grad()` (the caller's, or `update_state`'s)."""
        dtype = self._torch_dtype
        if not (
            type(y_pred) is torch.Tensor and type(y_true) is torch.Tensor
            and y_pred.dtype == dtype and y_pred.ndim == y_true.ndim
            and y_pred.device == self.total.device and y_true.device == y_pred.device
            and self.reduction == MetricReduction.WEIGHTED_MEAN
        ):
            return False
        hits = self._accuracy_hits(y_true, y_pred)
        if hits is not None:  # the sum of float32 ones is the count of hits, exactly
            self.total.add_(hits.sum(dtype=dtype))
            self.count.add_(float(hits.numel()))
            return True
        matches = self._fn(y_true if y_true.dtype == dtype else y_true.to(dtype), y_pred,
                           **self._fn_kwargs)
        if (type(matches) is torch.Tensor and matches.dtype == dtype
                and getattr(matches, "_keras_mask", None) is None):
            self.total.add_(matches.sum())
            self.count.add_(float(matches.numel()))
            return True
        self._accumulate(matches, None)
        return True

    def _accuracy_hits(self, y_true: torch.Tensor, y_pred: torch.Tensor) -> torch.Tensor | None:
        """Where the predictions are right, as booleans, for the accuracies whose matches are
        counted without being made (`_update_plain`'s tensors); None for any other metric."""
        fn = self._fn
        if self._fn_kwargs or not y_pred.ndim:
            return None
        if fn is categorical_accuracy and y_true.dtype == y_pred.dtype and y_true.shape == y_pred.shape:
            # exactly one-hot labels recorded with their class ids (`one_hot_labels`) need no argmax
            true_ids = one_hot_labels.class_ids(y_true) if y_true.ndim == 2 else None
            if true_ids is None:
                true_ids = torch.argmax(y_true, dim=-1)
            return torch.argmax(y_pred, dim=-1) == true_ids
        if (fn is sparse_categorical_matches and _are_class_ids(y_true) and y_true.shape[-1] == 1
                and y_true.shape[:-1] == y_pred.shape[:-1] and y_pred.shape[-1] <= _FLOAT32_EXACT):
            # integer ids against the argmax's, without the function's three casts: equal exactly
            # where Keras' float32 comparison is equal (every class id below 2**24 is a float32;
            # a label at or above it matches no class either way)
            return torch.argmax(y_pred, dim=-1) == y_true.squeeze(-1)
        return None

    def _accumulate(self, matches: Any, sample_weight: Any) -> None:
        """Adds `fn`'s values (masked as their Keras mask says) to the mean's state."""
        mask = get_mask(matches)
        if mask is not None:
            sample_weight = apply_valid_mask(matches, sample_weight, mask, self.reduction)
        Reduce.update_state.__wrapped__(self, matches, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        """Returns `{'name', 'dtype'}`, the function's arguments, and `fn` for a plain wrapper."""
        config = dict(super().get_config())
        for key, value in self._fn_kwargs.items():
            config[key] = value.tolist() if isinstance(value, torch.Tensor) else value
        if type(self) is MeanMetricWrapper:
            config["fn"] = _fn_reference(self._fn)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        """Creates the metric from its config; `fn` is looked up by name for a plain wrapper."""
        config = dict(config)
        fn = config.pop("fn", None)
        if cls is MeanMetricWrapper:
            if fn is None:
                raise ValueError("MeanMetricWrapper config needs 'fn', the metric function's name.")
            return cls(_GET_FUNCTION[0](fn), **config)
        return cls(**config)


class MeanTensor(Metric):
    """Computes the element-wise (weighted) mean of the given tensors.

    `result()` has the shape of the inputs. The state (`total`, `count`) is
    created on the first `update_state` unless `shape` is given.
    """

    def __init__(self, name: str = "mean_tensor", dtype: Any = None, shape: Any = None):
        super().__init__(name=name, dtype=dtype)
        self._shape: tuple[int, ...] | None = None
        self._total = None
        self._count = None
        self._built = False
        if shape is not None:
            self._build(tuple(shape))

    def _build(self, shape: tuple[int, ...]) -> None:
        self._shape = tuple(shape)
        self._total = self.add_weight(name="total", shape=shape, initializer="zeros")
        self._count = self.add_weight(name="count", shape=shape, initializer="zeros")
        self._built = True

    @property
    def total(self) -> torch.Tensor | None:
        """The running weighted sum (None before the first update)."""
        return self._total

    @property
    def count(self) -> torch.Tensor | None:
        """The running sum of weights (None before the first update)."""
        return self._count

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Accumulates `values` element-wise, weighted by `sample_weight` (default 1)."""
        values = to_tensor(values, dtype=self._torch_dtype, device=self._device)
        if not self._built:
            self._build(tuple(values.shape))
        elif tuple(values.shape) != self._shape:
            raise ValueError(
                "MeanTensor input values must always have the same shape. Expected shape (set "
                f"during the first call): {self._shape}. Got: {tuple(values.shape)}."
            )
        num_values = torch.ones_like(values)
        if sample_weight is not None:
            sample_weight = to_tensor(sample_weight, dtype=values.dtype, device=values.device)
            values, _, sample_weight = squeeze_or_expand_dimensions(values, None, sample_weight)
            try:
                sample_weight = broadcast_weights(sample_weight, values)
            except ValueError:
                dims = list(range(sample_weight.dim(), values.dim()))
                values = values.mean(dims)
            num_values = num_values * sample_weight
            values = values * sample_weight
        self._total.assign_add(values)
        self._count.assign_add(num_values)

    def result(self) -> torch.Tensor:
        """Returns the element-wise mean; raises ValueError before any update."""
        if not self._built:
            raise ValueError(
                "MeanTensor does not have any value yet. Please call the MeanTensor instance or "
                "use `.update_state(value)` before retrieving the result."
            )
        total, count = self._total, self._count
        return torch.where(count == 0, 0.0, total / torch.where(count == 0, 1.0, count))

    def reset_state(self) -> None:
        """Zeroes the state (when it exists)."""
        for variable in self.variables:
            variable.assign(0)

    def get_config(self) -> dict[str, Any]:
        """Returns `{'name', 'dtype', 'shape'}`."""
        return {**super().get_config(), "shape": list(self._shape) if self._shape else None}
