"""`KerasTensor`: a symbolic tensor of the functional API (a shape, a dtype, a history).

Calling a layer on KerasTensors records a `Node` instead of computing.
Arithmetic, comparison, indexing and `@` on KerasTensors record an op node
(a `TFOpLambda`), so `Dense(4)(x) * 2 + y[:, :1]` builds a graph too.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch

from torchestimator import _dtypes
from torchestimator._ops import symbolic_dispatch
from torchestimator.keras.engine import _tf_op_record


class KerasHistory(NamedTuple):
    """Where a KerasTensor came from: the layer, which of its calls, which output."""

    layer: Any
    node_index: int
    tensor_index: int


class KerasTensor:
    """A symbolic tensor: `shape` (a tuple, None for unknown dims, with `tf.TensorShape`'s API:
    `shape.as_list()`, `shape.rank`), `dtype`, `name`."""

    __array_priority__ = 1000

    def __init__(self, shape: tuple, dtype: Any = torch.float32, name: str | None = None):
        self.shape = _dtypes.SpecShape(None if d is None else int(d) for d in shape)
        self.dtype = _dtypes.as_dtype(dtype)
        self.name = name
        self._keras_history: KerasHistory | None = None
        self._keras_mask: KerasTensor | None = None

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def get_shape(self) -> _dtypes.SpecShape:
        """The shape (TF's alias of `.shape`), with `tf.TensorShape`'s API."""
        return self.shape

    def __repr__(self) -> str:
        return (
            f"<KerasTensor shape={self.shape}, dtype={_dtypes.dtype_name(self.dtype)}, "
            f"name={self.name}>"
        )

    def __len__(self) -> int:
        if self.shape and self.shape[0] is not None:
            return self.shape[0]
        raise TypeError("len() of a symbolic tensor with an unknown first dimension")

    def __bool__(self) -> bool:
        raise TypeError(
            "A symbolic KerasTensor has no truth value: it stands for data that does not exist "
            "yet. Use it only as a layer input, or write the condition inside a layer's call()."
        )

    def __iter__(self):
        raise TypeError("A symbolic KerasTensor cannot be iterated; index it instead (x[:, 0]).")

    # Operators record op nodes; the table of ops lives in ops.py.
    def _op(self, name: str, *args: Any) -> KerasTensor:
        from torchestimator.keras.engine.op_layer import (  # lazy: subclass (keras.engine.op_layer.SlicingOpLambda subclasses TFOpLambda, whose module keras.engine.op_layer loads this one first)
            SlicingOpLambda,
            TFOpLambda,
        )

        layer_class = SlicingOpLambda if name == "getitem" else TFOpLambda
        return layer_class(name)(self, *args)

    def _rop(self, name: str, other: Any) -> KerasTensor:
        from torchestimator.keras.engine.op_layer import (  # lazy: subclass (keras.engine.op_layer.TFOpLambda subclasses Layer, whose module keras.engine.base_layer loads this one first)
            TFOpLambda,
        )

        return TFOpLambda(name, reverse=True)(self, other)

    def __add__(self, o):
        return self._op("add", o)

    def __radd__(self, o):
        return self._rop("add", o)

    def __sub__(self, o):
        return self._op("subtract", o)

    def __rsub__(self, o):
        return self._rop("subtract", o)

    def __mul__(self, o):
        return self._op("multiply", o)

    def __rmul__(self, o):
        return self._rop("multiply", o)

    def __truediv__(self, o):
        return self._op("divide", o)

    def __rtruediv__(self, o):
        return self._rop("divide", o)

    def __pow__(self, o):
        return self._op("power", o)

    def __rpow__(self, o):
        return self._rop("power", o)

    def __matmul__(self, o):
        return self._op("matmul", o)

    def __rmatmul__(self, o):
        return self._rop("matmul", o)

    def __neg__(self):
        return self._op("negative")

    def __abs__(self):
        return self._op("abs")

    def __lt__(self, o):
        return self._op("less", o)

    def __le__(self, o):
        return self._op("less_equal", o)

    def __gt__(self, o):
        return self._op("greater", o)

    def __ge__(self, o):
        return self._op("greater_equal", o)

    def __getitem__(self, key):
        return self._op("getitem", key)

    __hash__ = object.__hash__


def is_symbolic(value: Any) -> bool:
    """True when `value` is, or (in a list, tuple or dict) contains, a KerasTensor."""
    if isinstance(value, KerasTensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(is_symbolic(v) for v in value)
    if isinstance(value, dict):  # plain tensors (a feature dict's usual values) are skipped inline
        return any(type(v) is not torch.Tensor and is_symbolic(v) for v in value.values())
    return False


def _record_tf_op(api_name: str, fn: Any, args: tuple, kwargs: dict) -> Any:
    return _tf_op_record.record_tf_op(api_name, fn, args, kwargs)  # read at call time (a circle)


# tf.* ops given a KerasTensor record a TFOpLambda layer (see _ops/symbolic_dispatch.py).
symbolic_dispatch.set_dispatcher((KerasTensor,), _record_tf_op)
