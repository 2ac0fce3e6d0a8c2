"""`Input` and `InputLayer`: the entry points of a functional model."""

from __future__ import annotations

from typing import Any

from torchestimator import _dtypes
from torchestimator.keras.backend import _state
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.engine.node import Node


class InputLayer(Layer):
    """The layer behind `Input()`: it has no weights and holds the graph's input tensor.

    Args: `input_shape` (without batch), `batch_size`, `dtype`, `name`, `sparse`
    (the input is a `tf.SparseTensor`), `ragged` (the input is a `tf.RaggedTensor`), or
    `batch_input_shape` (with the batch dimension).
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
        batch_input_shape: Any = None,
        **kwargs: Any,
    ):
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


def Input(  # noqa: N802 - Keras' name
    shape: Any = None,
    batch_size: int | None = None,
    name: str | None = None,
    dtype: Any = None,
    sparse: bool | None = None,
    tensor: KerasTensor | None = None,
    ragged: bool | None = None,
    batch_shape: Any = None,
    **kwargs: Any,
) -> KerasTensor:
    """Returns a symbolic tensor to start a functional model: `Input(shape=(784,))`.

    `shape` excludes the batch dimension (which is None unless `batch_size` is
    given); `dtype` defaults to float32; `name` names the model input.
    """
    if "batch_input_shape" in kwargs and batch_shape is None:
        batch_shape = kwargs.pop("batch_input_shape")
    if kwargs:
        raise TypeError(f"Input() got unexpected keyword argument(s) {sorted(kwargs)}")
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Input() needs a `shape` (without the batch dimension), e.g. shape=(784,)")
    layer = InputLayer(
        input_shape=shape, batch_size=batch_size, dtype=dtype, name=name, sparse=sparse,
        input_tensor=tensor, ragged=ragged, batch_input_shape=batch_shape,
    )
    return layer._output_tensor
