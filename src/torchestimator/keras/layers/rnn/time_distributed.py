"""`TimeDistributed`: applies a layer to every time step of a sequence
(`tf.keras.layers.TimeDistributed`), by folding the time axis into the batch axis."""

from __future__ import annotations

import copy
from typing import Any

import torch

from torchestimator.keras._registry import (
    deserialize_keras_object,
    serialize_keras_object,
)
from torchestimator.keras.engine import shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.rnn import _utils


class TimeDistributed(Layer):
    """This wrapper applies a layer to every temporal slice of an input.

    Every input should be at least 3D, `(batch, timesteps, ...)`; the wrapped
    layer sees `(batch * timesteps, ...)` and its output is reshaped back to
    `(batch, timesteps, ...)`. The same weights serve every time step.

    Args:
        layer: a `tf.keras.layers.Layer` instance.

    Call arguments: `inputs`, `training`, `mask` (bool `(batch, timesteps, ...)`,
    passed to the wrapped layer, flattened the same way, when it takes a mask).
    """

    def __init__(self, layer: Layer, **kwargs: Any):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `TimeDistributed` layer with a `tf.keras.layers.Layer` "
                f"instance. Received: {layer!r}"
            )
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, input_shape: Any) -> None:
        """Builds the wrapped layer for one time step of `input_shape`."""
        shape = tuple(input_shape)
        if len(shape) < 3:
            raise ValueError(
                f'`TimeDistributed` Layer "{self.name}" should be passed an `input_shape` with '
                f"at least 3 dimensions (batch, timesteps, ...), received: {shape}"
            )
        _utils.build_sublayer(self.layer, (None,) + shape[2:], self._build_device)
        self.built = True

    def call(self, inputs: torch.Tensor, training: bool | None = None, mask: Any = None) -> Any:
        """Applies the wrapped layer to `(batch * timesteps, ...)` and restores the time axis."""
        batch, steps = inputs.shape[0], inputs.shape[1]
        flat = inputs.reshape((batch * steps,) + tuple(inputs.shape[2:]))
        kwargs: dict[str, Any] = {}
        if self.layer._call_accepts_training:
            kwargs["training"] = training
        if mask is not None and self.layer._call_accepts_mask:
            kwargs["mask"] = mask.reshape((batch * steps,) + tuple(mask.shape[2:]))
        out = self.layer(flat, **kwargs)
        return _unfold(out, batch, steps)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The wrapped layer's mask with the time axis restored, else the input's time mask."""
        layer = self.layer
        if not (layer.supports_masking or layer._overrides_compute_mask):
            return mask
        batch, steps = inputs.shape[0], inputs.shape[1]
        flat = inputs.reshape((batch * steps,) + tuple(inputs.shape[2:]))
        flat_mask = None
        if mask is not None:
            flat_mask = mask.reshape((batch * steps,) + tuple(mask.shape[2:]))
        inner = layer.compute_mask(flat, flat_mask)
        if inner is None or (flat_mask is not None and inner is flat_mask):
            return mask
        return _unfold(inner, batch, steps)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `(batch, timesteps) + the wrapped layer's output shape for one step`."""
        shape = tuple(input_shape)
        inner = self.layer.compute_output_shape((None,) + shape[2:])
        return _prepend(inner, shape[:2])

    def compute_output_spec(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        """Returns the symbolic outputs (the wrapped layer's, with the time axis added)."""
        shape = tuple(inputs.shape)
        child = KerasTensor((None,) + shape[2:], inputs.dtype)
        inner = shape_inference.compute_output_spec(self.layer, (child,), {})

        def restore(spec: Any) -> Any:
            if isinstance(spec, KerasTensor):
                out = KerasTensor(shape[:2] + tuple(spec.shape[1:]), spec.dtype)
                time_mask = mask if mask is not None else getattr(inputs, "_keras_mask", None)
                if isinstance(time_mask, KerasTensor):
                    out._keras_mask = time_mask
                return out
            if isinstance(spec, (list, tuple)):
                return [restore(s) for s in spec]
            return spec

        return restore(inner)

    def get_config(self) -> dict:
        """Returns the config: the serialized wrapped layer."""
        config = super().get_config()
        config["layer"] = serialize_keras_object(self.layer)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> TimeDistributed:
        """Creates the wrapper from `get_config()`'s output (looking the wrapped layer's class
        up in `custom_objects` too)."""
        config = copy.deepcopy(config)
        layer = deserialize_keras_object(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)


def _unfold(value: Any, batch: int, steps: int) -> Any:
    if isinstance(value, torch.Tensor):
        return value.reshape((batch, steps) + tuple(value.shape[1:]))
    if isinstance(value, (list, tuple)):
        return type(value)(_unfold(v, batch, steps) for v in value)
    return value


def _prepend(shape: Any, lead: tuple) -> Any:
    if isinstance(shape, (list,)) and shape and isinstance(shape[0], (tuple, list)):
        return [_prepend(s, lead) for s in shape]
    return tuple(lead) + tuple(shape)[1:]
