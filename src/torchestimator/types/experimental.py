"""`tf.types.experimental`: TF's typing aliases (`TensorLike`) and abstract types of functions
and traced values, for annotations and `isinstance` checks. A `tf.function` here is a Python
callable, so the function types are abstract classes that any callable satisfies."""

from __future__ import annotations

import abc
import inspect
import types as _types
import typing
from typing import Any

import numpy as np
import torch

from torchestimator._sparse_tensor import SparseTensor
from torchestimator._variable import Variable
from torchestimator.distribute import _distributed_values

#: what `tf.convert_to_tensor` accepts (TF's `tf.types.experimental.TensorLike`)
TensorLike = (torch.Tensor | Variable | SparseTensor | np.ndarray | np.number | int | float | bool
              | complex | str | bytes | tuple | list)


class _CallableMeta(abc.ABCMeta):
    def __instancecheck__(cls, instance: Any) -> bool:
        return callable(instance) or super().__instancecheck__(instance)


class Callable(metaclass=_CallableMeta):
    """Base of TF's function types (`tf.types.experimental.Callable`): anything callable."""

    @property
    def function_type(self) -> Any:
        """The function's signature."""

        return inspect.signature(self)  # type: ignore[arg-type]

    @abc.abstractmethod
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the function."""


class GenericFunction(Callable):
    """A polymorphic function (TF's `tf.types.experimental.GenericFunction`): `tf.function(f)`."""


PolymorphicFunction = GenericFunction


class ConcreteFunction(Callable):
    """A function traced for one signature (TF's `tf.types.experimental.ConcreteFunction`)."""


class AtomicFunction(Callable):
    """The smallest callable function unit (TF's `tf.types.experimental.AtomicFunction`)."""


class TraceType(abc.ABC):
    """The type of a traced value (TF's `tf.types.experimental.TraceType`): subclasses define
    `is_subtype_of`, `most_specific_common_supertype`, `placeholder_value`, `__eq__`, `__hash__`."""

    @abc.abstractmethod
    def is_subtype_of(self, other: TraceType) -> bool:
        """Whether this type is a subtype of `other`."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others: typing.Sequence[TraceType]) -> TraceType | None:
        """The most specific type this and all `others` are subtypes of, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context: Any = None) -> Any:
        """A value of this type standing for it while tracing."""


@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """A value that gives its own TraceType (TF's `__tf_tracing_type__` protocol)."""

    def __tf_tracing_type__(self, context: Any) -> TraceType:
        """The value's TraceType."""


FunctionType = typing.Callable


distributed = _types.ModuleType("torchestimator.types.experimental.distributed",
                               "Types of distributed values: `Mirrored`, `PerReplica`.")
distributed.Mirrored = _distributed_values.Mirrored
distributed.PerReplica = _distributed_values.PerReplica
distributed.DistributedValues = _distributed_values.DistributedValues

__all__ = ["AtomicFunction", "Callable", "ConcreteFunction", "FunctionType", "GenericFunction",
           "PolymorphicFunction", "SupportsTracingProtocol", "TensorLike", "TraceType", "distributed"]
