"""`Bidirectional`: runs a recurrent layer forwards and a copy of it backwards over the
same sequence and merges the two outputs (`tf.keras.layers.Bidirectional`)."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import torch

from torchestimator.keras._registry import (
    deserialize_keras_object,
    serialize_keras_object,
)
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.rnn import _utils

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _recreate(layer: Layer, name: str, go_backwards: bool | None = None) -> Layer:
    """A new layer of `layer`'s config, named `name`. As TF's, when its `from_config` takes
    `custom_objects`, the classes of its cell (and a stack's cells) are passed there, so an
    RNN over an unregistered custom cell can be copied."""
    config = copy.deepcopy(layer.get_config())
    config["name"] = name
    if go_backwards is not None:
        config["go_backwards"] = go_backwards
    try:
        takes_custom = "custom_objects" in inspect.signature(type(layer).from_config).parameters
    except (TypeError, ValueError):
        takes_custom = False
    if not takes_custom:
        return type(layer).from_config(config)
    custom_objects = {}
    cell = getattr(layer, "cell", None)
    if cell is not None:
        for c in [cell, *getattr(cell, "cells", [])]:
            custom_objects[type(c).__name__] = type(c)
    return type(layer).from_config(config, custom_objects=custom_objects)


class Bidirectional(Layer):
    """Bidirectional wrapper for RNNs.

    Args:
        layer: a recurrent layer (`LSTM`, `GRU`, `SimpleRNN`, `RNN`, or a layer
            with `go_backwards`, `return_sequences` and `return_state`
            attributes and `get_config`). The forward and backward layers are
            new layers made from its config (`forward_<name>`, `backward_<name>`);
            its own weights are not reused.
        merge_mode: how the forward and backward outputs are combined: 'concat'
            (default), 'sum', 'mul', 'ave', or None (a list of both).
        weights: optional initial weights: the forward layer's, then the backward's.
        backward_layer: optional recurrent layer for the backward direction;
            it must have the opposite `go_backwards` and the same
            `return_sequences`, `return_state` and `stateful`.

    Call arguments: `inputs` (or a list `[inputs, *initial_states, *constants]`), `mask`,
    `training`, `initial_state` (the first half goes to the forward layer, the second half
    to the backward layer), `constants` (passed to both layers, whose `call` must take
    `constants`, as `RNN`'s does). With `return_sequences` the outputs of masked steps are
    zeros.
    """

    def __init__(
        self,
        layer: Layer,
        merge_mode: str | None = "concat",
        weights: list | None = None,
        backward_layer: Layer | None = None,
        **kwargs: Any,
    ):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a `tf.keras.layers.Layer` "
                f"instance. Received: {layer!r}"
            )
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(
                "`backward_layer` need to be a `tf.keras.layers.Layer` instance. "
                f"Received: {backward_layer!r}"
            )
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode!r}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        super().__init__(**kwargs)
        object.__setattr__(self, "_layer", layer)
        self.forward_layer = _recreate(layer, "forward_" + layer.name)
        self._backward_layer_config = None
        if backward_layer is None:
            self.backward_layer = _recreate(
                layer, "backward_" + layer.name, go_backwards=not layer.go_backwards
            )
        else:
            self._backward_layer_config = serialize_keras_object(backward_layer)
            backward_layer.name = "backward_" + backward_layer.name
            self.backward_layer = backward_layer
        self._verify_layer_config()
        for sub in (self.forward_layer, self.backward_layer):
            if hasattr(sub, "zero_output_for_mask"):
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        if weights:
            half = len(weights) // 2
            self.forward_layer._initial_weights = weights[:half]
            self.backward_layer._initial_weights = weights[half:]
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self._num_constants = 0  # the trailing entries of a list input that are constants

    @property
    def layer(self) -> Layer:
        """The layer this wrapper was created from (its config, not its weights, is used)."""
        return self._layer

    def _verify_layer_config(self) -> None:
        fwd, bwd = self.forward_layer, self.backward_layer
        if fwd.go_backwards == bwd.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value. "
                f"Received: forward_layer.go_backwards={fwd.go_backwards}, "
                f"backward_layer.go_backwards={bwd.go_backwards}"
            )
        for attr in ("stateful", "return_sequences", "return_state"):
            if getattr(fwd, attr) != getattr(bwd, attr):
                raise ValueError(
                    "Forward layer and backward layer are expected to have the same value for "
                    f'attribute "{attr}", got "{getattr(fwd, attr)}" for forward layer and '
                    f'"{getattr(bwd, attr)}" for backward layer'
                )

    def build(self, input_shape: Any) -> None:
        """Builds the forward and the backward layers for `input_shape`."""
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], (tuple, list)):
            input_shape = input_shape[0]
        for sub in (self.forward_layer, self.backward_layer):
            _utils.build_sublayer(sub, tuple(input_shape), self._build_device)
        self.built = True

    def _time_axis(self) -> int:
        return 0 if getattr(self.forward_layer, "time_major", False) else 1

    def _merge(self, y: Any, y_rev: Any) -> Any:
        if self.merge_mode == "concat":
            return torch.cat([y, y_rev], dim=-1)
        if self.merge_mode == "sum":
            return y + y_rev
        if self.merge_mode == "ave":
            return (y + y_rev) / 2
        if self.merge_mode == "mul":
            return y * y_rev
        return [y, y_rev]

    def call(
        self,
        inputs: Any,
        training: bool | None = None,
        mask: Any = None,
        initial_state: Any = None,
        constants: Any = None,
    ) -> Any:
        """Runs both directions and merges them; returns the output (and the states)."""
        inputs, initial_state, constants = _utils.split_call_inputs(
            self, inputs, initial_state, constants)
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = list(initial_state[:half]), list(initial_state[half:])
        kwargs: dict[str, Any] = {"training": training}
        if mask is not None:
            kwargs["mask"] = mask
        if constants is not None:
            kwargs["constants"] = constants
        y = self.forward_layer(inputs, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(inputs, initial_state=backward_state, **kwargs)
        states: list = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = y_rev.flip(self._time_axis())
        output = self._merge(y, y_rev)
        if self.return_state:
            if self.merge_mode is None:
                return output + states
            return [output] + states
        return output

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns the merged output shape (and the states' shapes when `return_state`)."""
        shape = self.forward_layer.compute_output_shape(input_shape)
        state_shapes: list = []
        if self.return_state:
            shape, state_shapes = shape[0], list(shape[1:])
        shape = tuple(shape)
        if self.merge_mode == "concat":
            out: Any = shape[:-1] + (None if shape[-1] is None else 2 * shape[-1],)
        elif self.merge_mode is None:
            out = [shape, shape]
        else:
            out = shape
        if self.return_state:
            outs = out if self.merge_mode is None else [out]
            return outs + state_shapes + state_shapes
        return out

    def compute_output_spec(
        self, inputs: Any, training: Any = None, mask: Any = None, initial_state: Any = None,
        constants: Any = None,
    ) -> Any:
        """Returns the symbolic outputs (with the output mask attached)."""
        x = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
        shapes = self.compute_output_shape(x.shape)
        dtype = self._compute_dtype
        if isinstance(shapes, list):
            outs = [KerasTensor(s, dtype) for s in shapes]
        else:
            outs = KerasTensor(shapes, dtype)
        if mask is None:
            mask = getattr(x, "_keras_mask", None)
        if self.return_sequences and isinstance(mask, KerasTensor):
            n_out = 2 if self.merge_mode is None else 1
            targets = outs[:n_out] if isinstance(outs, list) else [outs]
            for t in targets:
                t._keras_mask = mask
        return outs

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The time mask for sequence outputs (one per output with merge_mode=None)."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        if self.return_sequences:
            output_mask: list = [mask, mask] if self.merge_mode is None else [mask]
        else:
            output_mask = [None, None] if self.merge_mode is None else [None]
        if self.return_state:
            n_states = 2 * len(getattr(self.forward_layer, "_state_sizes", []))
            return output_mask + [None] * n_states
        return output_mask if self.merge_mode is None else output_mask[0]

    def reset_states(self, states: Any = None) -> None:
        """Resets the states of both stateful layers (the first half of `states` goes forward)."""
        if not self.stateful:
            raise AttributeError(f'Layer "{self.name}" must be stateful to reset its states.')
        if states is None:
            self.forward_layer.reset_states()
            self.backward_layer.reset_states()
            return
        half = len(states) // 2
        self.forward_layer.reset_states(states[:half])
        self.backward_layer.reset_states(states[half:])

    @property
    def states(self) -> list | None:
        """The states of the forward layer followed by those of the backward layer."""
        fwd, bwd = self.forward_layer.states, self.backward_layer.states
        if fwd and bwd:
            return list(fwd) + list(bwd)
        return None

    def get_config(self) -> dict:
        """Returns the config: the wrapped layer, `merge_mode`, and a custom backward layer."""
        config = super().get_config()
        config["layer"] = serialize_keras_object(self._layer)
        config["merge_mode"] = self.merge_mode
        if self._backward_layer_config is not None:
            config["backward_layer"] = self._backward_layer_config
        if self._num_constants:
            config["num_constants"] = self._num_constants
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Bidirectional:
        """Creates the wrapper from `get_config()`'s output (looking the layers' classes up in
        `custom_objects` too)."""
        config = copy.deepcopy(config)
        num_constants = config.pop("num_constants", 0)
        config["layer"] = deserialize_keras_object(config["layer"], custom_objects=custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = deserialize_keras_object(backward, custom_objects=custom_objects)
        layer = cls(**config)
        layer._num_constants = num_constants
        return layer
