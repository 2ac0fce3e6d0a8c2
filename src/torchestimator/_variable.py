"""`tf.Variable` on torch: a `torch.nn.Parameter` with TensorFlow's variable methods.

A trainable floating-point variable requires grad, so torch optimizers,
`state_dict`, `GradientTape.gradient` and our checkpoints see it like any
parameter; a non-trainable (or integer) one is a Parameter that does not.
Arithmetic on a variable returns plain tensors. `assign*` update it in place
without recording gradients and return the variable (what `tf.group` takes).
`numpy()` reads the value whether or not it records gradients.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine.object_scope import ReusableMeta
from torchestimator._ops.control_ops._context import creation_device as _creation_device
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator._ops.name_scopes import _SCOPE, current_name_scope  # noqa: F401 (re-exported)
from torchestimator._tensor_shape import TensorShape
from torchestimator._variable_updates import VariableUpdates

_NAME_COUNTS: dict[str, int] = {}


def _unique_variable_name(base: str) -> str:
    count = _NAME_COUNTS.get(base, 0)
    _NAME_COUNTS[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


class _VariableMeta(ReusableMeta, type(torch.nn.Parameter)):
    """Inside a `model_fn`, `tf.Variable(...)` returns the variable its first call created (matched
    by `name=` or by order, as every object model_fn constructs)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if not VARIABLE_CREATORS or cls is not Variable:
            return super().__call__(*args, **kwargs)
        return _create_through_creators(super().__call__, args, kwargs)


#: tf.variable_creator_scope's creators, outermost first (see _tf_extras.variable_creator_scope)
VARIABLE_CREATORS: list[Any] = []


def _create_through_creators(make: Any, args: tuple, kwargs: dict) -> Any:
    """Calls the innermost creator as TF's `creator(next_creator, **kwargs)`; the outermost's
    `next_creator` makes the variable."""

    bound = inspect.signature(Variable.__new__).bind(None, *args, **kwargs)
    bound.apply_defaults()
    arguments = {k: v for k, v in bound.arguments.items() if k != "cls"}

    def chain(index: int) -> Any:
        if index < 0:
            return lambda **kw: make(**kw)
        return lambda **kw: VARIABLE_CREATORS[index](chain(index - 1), **kw)

    return chain(len(VARIABLE_CREATORS) - 1)(**arguments)


class Variable(VariableUpdates, torch.nn.Parameter, metaclass=_VariableMeta):
    """A mutable tensor, as TF's `tf.Variable(initial_value, trainable=True, name=None, dtype=None,
    shape=None)`.

    `initial_value` may be a tensor, a numpy array, a Python value or a
    callable returning one. The variable's `name` ends in ':0' as in TF. As TF
    places it, the variable lives on the innermost `tf.device` block's device,
    else on the default device (`$TORCHESTIMATOR_DEVICE`, else CUDA when
    available, else the CPU), whatever device `initial_value` is on.
    Constructed inside an Estimator's `model_fn`, the variable is created on
    the first call and the same object is returned on later calls.
    """

    @classmethod
    def create(cls, value: torch.Tensor, trainable: bool = True, name: str | None = None,
               constraint: Any = None) -> Variable:
        """Makes a variable holding `value` itself (no copy), bypassing model_fn's object reuse:
        for weights that an owner (a layer's `add_weight`, `get_variable`) creates and tracks."""
        obj = torch.Tensor._make_subclass(
            cls, value.detach(), bool(trainable) and (value.is_floating_point() or value.is_complex())
        )
        obj._tf_name = name if name else _unique_variable_name("Variable")
        obj._tf_trainable = bool(trainable)
        obj._tf_constraint = constraint
        if constraint is not None:  # Keras optimizers apply it after each update
            obj._keras_constraint = constraint
        return obj

    def __new__(
        cls,
        initial_value: Any = None,
        trainable: bool | None = None,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        import_scope: Any = None,
        constraint: Any = None,
        synchronization: Any = None,
        aggregation: Any = None,
        shape: Any = None,
        experimental_enable_variable_lifting: bool = True,
    ) -> Variable:
        if initial_value is None:
            raise ValueError("tf.Variable: initial_value must be specified.")
        if callable(initial_value) and not isinstance(initial_value, torch.Tensor):
            initial_value = initial_value()
        if isinstance(initial_value, torch.Tensor):
            value = initial_value.detach()
            if dtype is not None:
                value = value.to(_dtypes.as_dtype(dtype))
        else:
            value = convert_to_tensor(initial_value, dtype)
            if isinstance(value, np.ndarray):
                raise TypeError(
                    "tf.Variable: string variables are not supported (torch has no string tensor); "
                    "keep strings in numpy arrays."
                )
        # TF's placement: a variable lives on the creation device (the innermost tf.device block,
        # else the default device) whatever device its initial value is on
        value = value.to(_creation_device(), copy=True)
        if shape is not None and validate_shape:
            wanted = tuple(d for d in shape) if not isinstance(shape, int) else (shape,)
            if len(wanted) != value.dim() or any(
                w is not None and int(w) != d for w, d in zip(wanted, value.shape)
            ):
                raise ValueError(
                    f"tf.Variable {name or 'Variable'}: initial_value has shape {list(value.shape)}, "
                    f"which is not compatible with the shape argument {list(wanted)}."
                )
        prefix = current_name_scope()
        if prefix:  # inside tf.name_scope('outer'): 'outer/v', 'outer/Variable'
            name = _unique_variable_name(prefix + "Variable") if name is None else prefix + name
        return cls.create(value, True if trainable is None else trainable, name, constraint)

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # everything happens in __new__
        pass

    # --- what TF's variable reports -------------------------------------------------------
    @property
    def name(self) -> str:  # type: ignore[override]
        """The variable's name with TF's output suffix, e.g. 'dense/kernel:0'."""
        return f"{self._tf_name}:0"

    @property
    def trainable(self) -> bool:
        """Whether gradient-based training updates this variable."""
        return self._tf_trainable

    @property
    def constraint(self) -> Any:
        """The constraint function given to the constructor, or None."""
        return self._tf_constraint

    def numpy(self, *, force: bool = False) -> np.ndarray:  # type: ignore[override]
        """Returns the current value as a numpy array (a copy, on the host).

        `force` is torch's keyword (`Tensor.numpy(force=True)`, which exporters such as
        `torch.onnx` pass); a variable's value is always read whatever it records, so both
        values give the same copy."""
        value = self.detach().as_subclass(torch.Tensor)
        if not value.is_cpu:  # the host copy is already a copy
            return value.cpu().numpy()
        return value.numpy(force=force).copy()

    def __float__(self) -> float:  # `float(v)` reads the value (no autograd warning)
        return float(self.detach())

    def value(self) -> torch.Tensor:
        """Returns the current value as a plain tensor; gradients flow back to the variable."""
        return self.as_subclass(torch.Tensor) * 1 if self.requires_grad else \
            self.detach().as_subclass(torch.Tensor).clone()

    def read_value(self) -> torch.Tensor:
        """Returns the current value (as `value()`)."""
        return self.value()

    def get_shape(self) -> TensorShape:
        """The variable's shape as a `tf.TensorShape` (TF's alias of `.shape`)."""
        return TensorShape(self.shape)

    # --- updates --------------------------------------------------------------------------
    def _coerce(self, value: Any, op: str) -> Any:
        if isinstance(value, torch.Tensor):
            if value.dtype != self.dtype:
                if value.is_floating_point() != self.is_floating_point():
                    raise TypeError(
                        f"{op} on variable {self.name} of dtype {dtype_name(self.dtype)} got a value "
                        f"of dtype {dtype_name(value.dtype)}; tf.cast it first."
                    )
                value = value.to(self.dtype)
            if value.device != self.device:
                value = value.to(self.device)
            return value.detach()
        if isinstance(value, (bool, int, float)):
            return value
        return torch.as_tensor(np.asarray(value), dtype=self.dtype, device=self.device)

    def _check_shape(self, value: Any, op: str) -> None:
        if isinstance(value, torch.Tensor) and value.shape != self.shape:
            try:
                torch.broadcast_shapes(value.shape, self.shape)
                ok = value.dim() <= self.dim() and torch.broadcast_shapes(value.shape, self.shape) == self.shape
            except RuntimeError:
                ok = False
            if not ok:
                raise ValueError(
                    f"{op}: cannot assign a value of shape {list(value.shape)} to variable "
                    f"{self.name} of shape {list(self.shape)}."
                )

    def assign(self, value: Any, use_locking: bool = False, name: Any = None, read_value: bool = True) -> Variable:
        """Sets the variable to `value`. Returns the variable."""
        value = self._coerce(value, "assign")
        self._check_shape(value, "assign")
        with torch.no_grad():
            if isinstance(value, torch.Tensor):
                self.copy_(value)
            else:
                self.fill_(value)
        return self

    def assign_add(self, delta: Any, use_locking: bool = False, name: Any = None, read_value: bool = True) -> Variable:
        """Adds `delta` to the variable in place. Returns the variable."""
        delta = self._coerce(delta, "assign_add")
        self._check_shape(delta, "assign_add")
        with torch.no_grad():
            self.add_(delta)
        return self

    def assign_sub(self, delta: Any, use_locking: bool = False, name: Any = None, read_value: bool = True) -> Variable:
        """Subtracts `delta` from the variable in place. Returns the variable."""
        delta = self._coerce(delta, "assign_sub")
        self._check_shape(delta, "assign_sub")
        with torch.no_grad():
            self.sub_(delta)
        return self

    # --- copies -----------------------------------------------------------------------------
    def __deepcopy__(self, memo: dict) -> Variable:
        if id(self) in memo:
            return memo[id(self)]
        new = Variable.create(self.detach().clone(), self._tf_trainable, self._tf_name)
        new.requires_grad_(self.requires_grad)
        memo[id(self)] = new
        for key, value in self.__dict__.items():  # the constraint, Keras' attributes, ...
            if key not in ("_tf_name", "_tf_trainable"):
                setattr(new, key, copy.deepcopy(value, memo))
        return new

    def __reduce_ex__(self, proto: int) -> tuple:
        """Pickles the value (on its device, as torch pickles a `Parameter`), the name, the
        trainable flags and the Keras attributes; `_rebuild_variable` makes the variable."""
        extra = {k: v for k, v in self.__dict__.items() if k not in ("_tf_name", "_tf_trainable")}
        return (_rebuild_variable, (self.detach().as_subclass(torch.Tensor).clone(),
                                    self._tf_trainable, self._tf_name, self.requires_grad, extra))

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        value = np.array2string(self.numpy(), separator=", ")
        return (f"<tf.Variable '{self.name}' shape={tuple(self.shape)} "
                f"dtype={dtype_name(self.dtype)}, numpy={value}>")


def _rebuild_variable(data: torch.Tensor, trainable: bool, name: str, requires_grad: bool,
                      extra: dict | None = None) -> Variable:
    variable = Variable.create(data, trainable, name)
    variable.requires_grad_(requires_grad)
    for key, value in (extra or {}).items():
        setattr(variable, key, value)
    return variable
