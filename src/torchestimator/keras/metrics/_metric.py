"""`Metric`: the base class of Keras metrics, a plain Python object holding state tensors.

State is a list of `StateVariable`s created with `add_weight`. It lives on the
device of the inputs: when `update_state` receives a tensor on another device,
the whole state moves there before the update. `update_state` runs without
autograd and never synchronises with the host; `result()` returns a fresh
torch tensor, so reading it (`.item()`, `float()`) is the only sync.
"""

from __future__ import annotations

import abc
import functools
import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import as_dtype, dtype_name
from torchestimator._engine.object_scope import ReusableABCMeta
from torchestimator._ops.control_ops._context import creation_device
from torchestimator._torch_private import view_base
from torchestimator.keras.backend import floatx, unique_object_name
from torchestimator.keras.engine.call_context import CONTEXT as _CALL_CONTEXT
from torchestimator.keras.metrics._variable import StateVariable

_IGNORED_KWARGS = {"trainable", "dynamic", "autocast", "mesh"}


def _input_device(args: tuple, kwargs: dict) -> torch.device | None:
    """The device state should live on: the first accelerator tensor among the inputs, else CPU."""
    found = None
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            if value.device.type != "cpu":
                return value.device
            found = value.device
    return found


def _plain_result(metric: Metric, value: Any) -> Any:
    """Turns what `result()` returned into tensors that do not alias the state (TF's `tf.identity`)."""
    if isinstance(value, torch.Tensor):
        if isinstance(value, StateVariable):
            return value.detach().clone().as_subclass(torch.Tensor)
        if view_base(value) is not None:  # a view: copy it when it views a state variable
            try:
                ptr = value.untyped_storage().data_ptr()
            except RuntimeError:  # a backend without storages (lazy, XLA): copy it
                return value.detach().clone()
            if any(v.untyped_storage().data_ptr() == ptr for v in metric.variables):
                return value.detach().clone()
        return value
    if isinstance(value, dict):
        return {k: _plain_result(metric, v) for k, v in value.items()}
    if isinstance(value, (int, float, np.number)):
        return torch.tensor(float(value))
    return value


def _wrap_update_state(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def update_state(self: Metric, *args: Any, **kwargs: Any) -> Any:
        device = _input_device(args, kwargs)
        if device is not None and device != self._device:
            if device.type == "meta" and _CALL_CONTEXT.tracing:  # a layer's call in a shape
                return None  # trace (a functional model's construction): nothing to count
            self._move_state(device)
        if not torch.is_grad_enabled():
            return fn(self, *args, **kwargs)
        with torch.no_grad():
            return fn(self, *args, **kwargs)

    update_state._metric_wrapped = True
    return update_state


def _wrap_result(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def result(self: Metric) -> Any:
        with torch.no_grad():
            return _plain_result(self, fn(self))

    result._metric_wrapped = True
    return result


def _initial_value(initializer: Any, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    if initializer is None or initializer in ("zeros", "zero", "Zeros"):
        return torch.zeros(shape, dtype=dtype)
    if initializer in ("ones", "one", "Ones"):
        return torch.ones(shape, dtype=dtype)
    if isinstance(initializer, (int, float)):
        return torch.full(shape, initializer, dtype=dtype)
    if callable(initializer):
        try:
            value = initializer(shape, dtype=dtype)
        except TypeError:
            value = initializer(shape)
        return torch.as_tensor(np.asarray(value) if not isinstance(value, torch.Tensor) else value,
                               dtype=dtype).reshape(shape)
    raise ValueError(
        f"add_weight: unsupported initializer {initializer!r}; use 'zeros', 'ones', a number or a "
        "callable(shape, dtype)."
    )


def _snake_case(name: str) -> str:
    """`CamelCase` as `camel_case` (the default name of a metric made from a class or loss)."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


class Metric(metaclass=ReusableABCMeta):
    """Encapsulates metric logic and state.

    Subclasses create their state in `__init__` with `self.add_weight(...)`,
    accumulate it in `update_state(...)` (`self.var.assign_add(...)`) and
    compute the value in `result()`:

    ```python
    class BinaryTruePositives(tf.keras.metrics.Metric):
        def __init__(self, name="binary_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_weight(name="tp", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            values = (torch.as_tensor(y_true) == 1) & (torch.as_tensor(y_pred) > 0.5)
            self.true_positives.assign_add(values.float().sum())

        def result(self):
            return self.true_positives
    ```

    Args:
      name: string name of the metric instance (default: the snake-cased
        class name, made unique: 'auc', 'auc_1', ...).
      dtype: data type of the metric result, default 'float32'.
    """

    #: True for a PyTorch metric (`TorchMetric`): `compile` gives it the labels as they are,
    #: without Keras' rank alignment.
    _torch_order = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        update = cls.__dict__.get("update_state")
        if update is not None and not getattr(update, "_metric_wrapped", False):
            cls.update_state = _wrap_update_state(update)
        result = cls.__dict__.get("result")
        if result is not None and not getattr(result, "_metric_wrapped", False):
            cls.result = _wrap_result(result)

    def __init__(self, name: str | None = None, dtype: Any = None, **kwargs: Any):
        unknown = set(kwargs) - _IGNORED_KWARGS
        if unknown:
            raise TypeError(
                f"{type(self).__name__}: unexpected keyword argument(s) {sorted(unknown)}; a "
                "Metric accepts name and dtype."
            )
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Metric name must be a string; received name={name!r}")
        self._name = name or unique_object_name(type(self).__name__)
        dtype = floatx() if dtype is None else dtype
        self._torch_dtype = as_dtype(dtype)
        self._dtype = dtype_name(self._torch_dtype)
        self._state_variables: list[StateVariable] = []
        # TF's placement: state is created on the creation device (the tf.device block's, else
        # the default device); an update with inputs elsewhere still moves it there
        self._device = creation_device()
        self.stateful = True
        self.built = True

    # -- identity ---------------------------------------------------------
    @property
    def name(self) -> str:
        """The metric's name; it keys the metric in logs and History."""
        return self._name

    @property
    def dtype(self) -> str:
        """The metric's dtype name, e.g. 'float32'."""
        return self._dtype

    @property
    def device(self) -> torch.device:
        """The device the metric's state lives on."""
        return self._device

    def __str__(self) -> str:
        args = ",".join(f"{k}={v}" for k, v in self.get_config().items())
        return f"{self.__class__.__name__}({args})"

    __repr__ = __str__

    # -- state ------------------------------------------------------------
    def add_weight(
        self,
        name: str | None = None,
        shape: Iterable[int] | int = (),
        aggregation: str = "sum",
        synchronization: str = "on_read",
        initializer: Any = None,
        dtype: Any = None,
    ) -> StateVariable:
        """Adds a state variable. Only for use by subclasses.

        Returns the new `StateVariable` of `shape`, filled by `initializer`
        ('zeros' by default), on the metric's current device.
        """
        if not isinstance(name, (str, type(None))):  # Keras 3 order: add_weight(shape, ...)
            name, shape = None, name
        shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
        torch_dtype = self._torch_dtype if dtype is None else as_dtype(dtype)
        with torch.inference_mode(False):  # state created during evaluation must stay updatable
            value = _initial_value(initializer, shape, torch_dtype).to(self._device)
            variable = StateVariable(value, name or f"variable_{len(self._state_variables)}")
        self._state_variables.append(variable)
        return variable

    def add_variable(
        self, shape: Iterable[int] | int = (), initializer: Any = None, dtype: Any = None,
        aggregation: str = "sum", name: str | None = None,
    ) -> StateVariable:
        """Keras 3's name for `add_weight` (shape first). Returns the new variable."""
        return self.add_weight(name=name, shape=shape, initializer=initializer, dtype=dtype)

    @property
    def variables(self) -> list[StateVariable]:
        """The state variables of this metric and of the metrics it holds as attributes."""
        found = list(self._state_variables)
        seen = {id(v) for v in found}
        for value in self.__dict__.values():
            if isinstance(value, Metric) and value is not self:
                for v in value.variables:
                    if id(v) not in seen:
                        seen.add(id(v))
                        found.append(v)
        return found

    @property
    def weights(self) -> list[StateVariable]:
        """Alias of `variables`."""
        return self.variables

    non_trainable_weights = weights
    non_trainable_variables = weights

    @property
    def trainable_weights(self) -> list[StateVariable]:
        """Always empty: metric state is not trained."""
        return []

    trainable_variables = trainable_weights

    def get_weights(self) -> list[np.ndarray]:
        """Returns the state as a list of numpy arrays."""
        return [v.numpy() for v in self.variables]

    def set_weights(self, weights: list[Any]) -> None:
        """Sets the state from a list of arrays, in the order of `variables`."""
        variables = self.variables
        if len(weights) != len(variables):
            raise ValueError(
                f"{self.name}: set_weights expected {len(variables)} arrays, received {len(weights)}"
            )
        for variable, value in zip(variables, weights):
            variable.assign(torch.as_tensor(np.asarray(value)))

    def _move_state(self, device: torch.device) -> None:
        for variable in self.variables:
            variable.move_to(device)
        for value in self.__dict__.values():
            if isinstance(value, Metric) and value is not self:
                value._device = device
        self._device = device

    def to(self, device: Any) -> Metric:
        """Moves the metric's state to `device`. Returns the metric."""
        device = torch.device(device)
        if device.type == "cuda" and device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        self._move_state(device)
        return self

    def reset_state(self) -> None:
        """Resets all of the metric state variables to zero (called between epochs)."""
        if type(self).reset_states is not Metric.reset_states:
            warnings.warn(
                f"Metric {type(self).__name__} implements a `reset_states()` method; rename it to "
                '`reset_state()` (without the final "s"). The name `reset_states()` has been '
                "deprecated to improve API consistency.",
                stacklevel=2,
            )
            self.reset_states()
            return
        for variable in self.variables:
            variable.assign(0)

    def reset_states(self) -> None:
        """Deprecated alias of `reset_state()`."""
        self.reset_state()

    def merge_state(self, metrics: Iterable[Metric]) -> None:
        """Adds the state of `metrics` (metrics of the same kind) into this metric's state."""
        for metric in metrics:
            mine, theirs = self.variables, metric.variables
            if len(mine) != len(theirs) or any(a.shape != b.shape for a, b in zip(mine, theirs)):
                raise ValueError(f"Metric {metric} is not compatible with {self}")
            for variable, other in zip(mine, theirs):
                variable.assign_add(other.to(variable.device))

    # -- computation ------------------------------------------------------
    @abc.abstractmethod
    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulates statistics for the metric (abstract: every subclass defines it)."""

    @abc.abstractmethod
    def result(self) -> Any:
        """Computes and returns the metric value tensor (or a dict of them) from the state.

        Abstract: every subclass defines it.
        """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Accumulates statistics (`update_state`) and then returns the metric result value
        (a tensor result carries the metric as `_metric_obj`, as TF's: a layer's
        `add_metric(metric(x))` then reports that metric)."""
        self.update_state(*args, **kwargs)
        result = self.result()
        if type(result) is torch.Tensor:  # (not a state variable itself: Sum's total)
            result._metric_obj = self
        return result

    # -- serialization ----------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """Returns the serializable config of the metric: `{'name', 'dtype'}` plus its arguments."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        """Creates a metric from its config (the output of `get_config()`)."""
        return cls(**config)
