"""`Lambda`: wraps an arbitrary expression (a Python function of tensors) as a layer."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import torch

from torchestimator._ops import nest
from torchestimator.keras.engine import shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.core._function_serialization import (
    decode_value,
    deserialize_function,
    encode_value,
    in_safe_mode,
    serialize_function,
)


def _accepts(function: Any, name: str) -> bool:
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return name in params


class Lambda(Layer):
    """Wraps arbitrary expressions as a `Layer` object.

    `Lambda(lambda x: x ** 2)` applies the function to its input on every call.
    The function receives the input tensor (a `torch.Tensor`) and, if its
    signature names them, `mask` and `training`; `arguments` are passed as
    keyword arguments. Weights created inside the function are not tracked:
    subclass `Layer` for anything stateful.

    Saving: a function importable by name is saved by name; a lambda or local
    function is saved as its source text in a `__lambda__` record (never as
    bytecode). Loading such a record runs Python code, so `from_config` refuses
    it unless `safe_mode=False` is given (or set by the loader). In safe mode a
    function saved by name loads only if it is one of the package's activations
    or pure tensor ops, an allowlisted torch function, or passed in
    `custom_objects` / registered with `register_keras_serializable`.

    Args:
        function: The function to be evaluated. Takes the input tensor as first argument.
        output_shape: Expected output shape (without the batch dimension) or a
            function of the input shape; used when the shape cannot be inferred.
        mask: None (the output is not masked), a callable with the signature of
            `compute_mask`, or a tensor used as the output mask.
        arguments: Optional dictionary of keyword arguments passed to the function.

    Returns (when called): the function's result.
    """

    def __init__(
        self,
        function: Any,
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(
                f'Lambda layer "{self.name}": `function` must be callable; received '
                f"{function!r} of type {type(function).__name__}."
            )
        self.arguments = dict(arguments or {})
        self.function = function
        self.supports_masking = mask is not None
        self.mask = mask
        self._output_shape = output_shape
        self._fn_expects_training_arg = _accepts(function, "training")
        self._fn_expects_mask_arg = _accepts(function, "mask")

    def call(
        self, inputs: Any, mask: Any = None, training: bool | None = None
    ) -> Any:
        """Returns `function(inputs, **arguments)` (plus `mask` / `training` if it takes them)."""
        kwargs = dict(self.arguments) if self.arguments else {}
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Returns `mask(inputs, mask)` for a callable `mask`, else the `mask` given."""
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def _declared_output_shape(self, input_shape: Any) -> Any:
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        first = nest.flatten(input_shape)
        batch = first[0] if first else None
        shape = self._output_shape
        if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
            return [(batch,) + tuple(s) for s in shape]
        return (batch,) + tuple(shape)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Returns the symbolic output: traced from the function, or from `output_shape`."""

        try:
            return shape_inference._trace_output_spec(self, (inputs, *args), kwargs)
        except Exception:
            if self._output_shape is None:
                raise
        shapes = self._declared_output_shape(
            nest.map_structure(lambda t: t.shape if isinstance(t, KerasTensor) else t, inputs)
        )
        return shape_inference._specs_from_shapes(shapes, self._compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `output_shape` applied to `input_shape` if given, else the traced shape."""
        if self._output_shape is not None:
            return self._declared_output_shape(input_shape)
        return super().compute_output_shape(input_shape)

    def get_config(self) -> dict:
        """Returns the function (by name, or as a `__lambda__` source record), the output
        shape, the mask and the arguments, with the base layer's config."""
        function, function_type, module = serialize_function(self.function)
        shape, shape_type, shape_module = serialize_function(self._output_shape, allow_raw=True)
        config = super().get_config()
        config.update(
            {
                "function": function,
                "function_type": function_type,
                "module": module,
                "output_shape": shape,
                "output_shape_type": shape_type,
                "output_shape_module": shape_module,
            }
        )
        if self.mask is not None:
            if callable(self.mask):
                mask, mask_type, mask_module = serialize_function(self.mask)
            else:
                mask, mask_type, mask_module = encode_value(self.mask), "raw", None
            config.update({"mask": mask, "mask_type": mask_type, "mask_module": mask_module})
        arguments = {}
        for key, value in self.arguments.items():
            if isinstance(value, (np.ndarray, torch.Tensor)):
                array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else value
                arguments[key] = {"type": "ndarray", "value": array.tolist()}
            else:
                arguments[key] = value
        config["arguments"] = arguments
        return config

    @classmethod
    def from_config(
        cls, config: dict, custom_objects: dict | None = None, safe_mode: bool | None = None
    ) -> Lambda:
        """Creates a Lambda layer from `get_config()`'s output.

        `safe_mode` None means the active mode (`SafeModeScope` / `load_model`'s argument,
        else True unless `enable_unsafe_deserialization()` was called). In safe mode the
        function, `output_shape` and `mask` may only be the package's activations and pure
        tensor ops, an allowlisted torch function, or objects from `custom_objects` / the
        registry; a `__lambda__` source record or a module to import is a ValueError naming
        the layer. Outside safe mode functions are imported by module name and lambdas
        rebuilt from source, as Keras 2 does.
        """
        config = dict(config)
        name = config.get("name", "lambda")
        safe = in_safe_mode() if safe_mode is None else bool(safe_mode)
        function = deserialize_function(
            config.pop("function", None), config.pop("function_type", "function"),
            config.pop("module", None), custom_objects, safe, name,
        )
        output_shape = config.pop("output_shape", None)
        shape_type = config.pop("output_shape_type", "raw")
        shape_module = config.pop("output_shape_module", None)
        if output_shape is not None:
            output_shape = deserialize_function(
                output_shape, shape_type, shape_module, custom_objects, safe, name, "output_shape"
            )
        mask = config.pop("mask", None)
        mask_type = config.pop("mask_type", "raw")
        mask_module = config.pop("mask_module", None)
        if mask is not None:
            if mask_type == "raw" and isinstance(mask, dict):
                try:
                    mask = decode_value(mask, safe_mode=safe)
                except ValueError as error:
                    raise ValueError(f'Lambda layer "{name}": its mask: {error}') from error
            else:
                mask = deserialize_function(
                    mask, mask_type, mask_module, custom_objects, safe, name, "mask"
                )
        arguments = dict(config.pop("arguments", None) or {})
        for key, value in arguments.items():
            if isinstance(value, dict) and value.get("type") == "ndarray":
                arguments[key] = np.array(value["value"])
        return cls(function, output_shape=output_shape, mask=mask, arguments=arguments, **config)
