"""`Input` and `InputLayer`: the entry points of a functional model."""

from __future__ import annotations

from typing import Any

from torchestimator import _dtypes
from torchestimator._ragged._spec import RaggedTensorSpec
from torchestimator._type_spec import SparseTensorSpec
from torchestimator.keras.backend import _state
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.engine.node import Node


class InputLayer(Layer):
    """The layer behind `Input()`: it has no weights and holds the graph's input tensor.

    Args: `input_shape` (without batch), `batch_size`, `dtype`, `name`, `sparse`
    (the input is a `tf.SparseTensor`), `ragged` (the input is a `tf.RaggedTensor`),
    `type_spec` (a `tf.TensorSpec`, `tf.SparseTensorSpec` or `tf.RaggedTensorSpec` giving
    the shape with the batch dimension, the dtype and the kind of input; then the other
    arguments but `name` must be None), or `batch_input_shape` (a keyword: the shape with
    the batch dimension).
    """

    def __init__(
        self,
        input_shape: Any = None,
        batch_size: int | None = None,
        dtype: Any = None,
        input_tensor: KerasTensor | None = None,
        sparse: bool | None = None,
        name: str | None = None,
        ragged: bool | None = None,
        type_spec: Any = None,
        **kwargs: Any,
    ):
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if type_spec is not None:
            for arg_name, arg in (("(input_)shape", input_shape), ("batch_size", batch_size),
                                  ("dtype", dtype), ("input_tensor", input_tensor),
                                  ("sparse", sparse), ("ragged", ragged),
                                  ("batch_input_shape", batch_input_shape)):
                if arg is not None:
                    raise ValueError(
                        "When `type_spec` is not None, all other args except `name` must be "
                        f"None, but {arg_name} is not None."
                    )
            batch_input_shape, dtype, sparse, ragged = _from_type_spec(type_spec)
        if sparse and ragged:
            raise ValueError("Cannot set both sparse and ragged to True in a Keras input.")
        if batch_input_shape is not None:
            shape = tuple(batch_input_shape)
        elif input_tensor is not None:
            shape = tuple(input_tensor.shape)
        elif input_shape is not None:
            if isinstance(input_shape, int):
                input_shape = (input_shape,)
            shape = (batch_size,) + tuple(input_shape)
        else:
            raise ValueError(
                "InputLayer needs a shape: pass `shape` (without the batch dimension) or "
                "`batch_input_shape`."
            )
        super().__init__(name=name or _state.unique_object_name("input", zero_based=False), dtype=None, **kwargs)
        self._input_dtype = _dtypes.as_dtype(dtype if dtype is not None else _state.floatx())
        self._batch_input_shape = shape
        self.built = True
        tensor = input_tensor or KerasTensor(shape, self._input_dtype, name=self.name)
        self._ragged = bool(ragged)
        if self._ragged:  # a tf.RaggedTensor input (keras/_ragged_inputs.py)
            tensor.ragged = True
        self._sparse = bool(sparse)
        if self._sparse:  # a tf.SparseTensor input (keras/_sparse_inputs.py)
            tensor.sparse = True
        if tensor.name is None:
            tensor.name = self.name
        Node(self, (), {}, tensor)
        self._output_tensor = tensor

    @property
    def dtype(self) -> str:
        """The input's dtype, as a string."""
        return _dtypes.dtype_name(self._input_dtype)

    def call(self, inputs: Any) -> Any:
        return inputs

    def get_config(self) -> dict:
        """Returns `batch_input_shape`, `dtype` and `name`."""
        return {
            "batch_input_shape": list(self._batch_input_shape),
            "dtype": _dtypes.dtype_name(self._input_dtype),
            "sparse": self._sparse,
            "ragged": self._ragged,
            "name": self.name,
        }


def _from_type_spec(type_spec: Any) -> tuple:
    """(batch_input_shape, dtype, sparse, ragged) of an `InputLayer`'s `type_spec`."""
    if not isinstance(type_spec, (_dtypes.TensorSpec, SparseTensorSpec, RaggedTensorSpec)):
        raise ValueError(
            "Input type_spec must be a tf.TensorSpec, tf.SparseTensorSpec or "
            f"tf.RaggedTensorSpec; received {type_spec!r}"
        )
    shape = type_spec.shape
    rank = None if shape is None else getattr(shape, "rank", len(shape))
    if rank is None:
        raise ValueError(
            f"Input type_spec {type_spec!r} has an unknown rank; give its shape, with the "
            "batch dimension (None for any batch size)."
        )
    dims = tuple(None if d is None else int(d) for d in
                 (shape.as_list() if hasattr(shape, "as_list") else shape))
    ragged = isinstance(type_spec, RaggedTensorSpec) and type_spec.ragged_rank > 0
    return dims, type_spec.dtype, isinstance(type_spec, SparseTensorSpec), ragged


def Input(  # noqa: N802 - Keras' name
    shape: Any = None,
    batch_size: int | None = None,
    name: str | None = None,
    dtype: Any = None,
    sparse: bool | None = None,
    tensor: KerasTensor | None = None,
    ragged: bool | None = None,
    type_spec: Any = None,
    **kwargs: Any,
) -> KerasTensor:
    """Returns a symbolic tensor to start a functional model: `Input(shape=(784,))`.

    `shape` excludes the batch dimension (which is None unless `batch_size` is
    given); `dtype` defaults to float32; `name` names the model input. `type_spec` (a
    `tf.TensorSpec`, `tf.SparseTensorSpec` or `tf.RaggedTensorSpec`) gives the shape with
    the batch dimension, the dtype and the kind of input instead (a TensorSpec's name names
    the input when `name` is None). `batch_shape` / `batch_input_shape` (keywords) give the
    shape with the batch dimension.
    """
    batch_shape = kwargs.pop("batch_input_shape", kwargs.pop("batch_shape", None))
    if kwargs:
        raise TypeError(f"Input() got unexpected keyword argument(s) {sorted(kwargs)}")
    if shape is not None and batch_shape is not None:
        raise ValueError(
            "Only provide the `shape` OR `batch_input_shape` argument to Input, not both at the "
            "same time."
        )
    if shape is None and batch_shape is None and tensor is None and type_spec is None:
        raise ValueError("Input() needs a `shape` (without the batch dimension), e.g. shape=(784,)")
    if name is None and type_spec is not None:
        name = getattr(type_spec, "name", None)
    extra = {} if batch_shape is None else {"batch_input_shape": batch_shape}
    layer = InputLayer(
        input_shape=shape, batch_size=batch_size, dtype=dtype, name=name, sparse=sparse,
        input_tensor=tensor, ragged=ragged, type_spec=type_spec, **extra,
    )
    return layer._output_tensor
