"""Keras 2.15's RNN cell wrappers, exported as `tf.nn.RNNCellDropoutWrapper`,
`tf.nn.RNNCellResidualWrapper` and `tf.nn.RNNCellDeviceWrapper`: Keras cells (layers with
`call(inputs, states)`, `state_size`, `output_size`) wrapped with dropout, a residual
connection, or a device. The dropout and structure helpers are shared with tf.compat.v1's
wrappers (`_cell_wrapper_impl.py`, which `compat/v1/_rnn_cell.py` re-exports), so the TF1 and
Keras wrappers drop the same way.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import torch

from torchestimator.keras._registry import (
    deserialize_keras_object,
    serialize_keras_object,
)
from torchestimator.keras.layers.rnn import _cell_wrapper_impl as _impl
from torchestimator.keras.layers.rnn.abstract_rnn_cell import AbstractRNNCell

_log = logging.getLogger("torchestimator")


class _RNNCellWrapper(AbstractRNNCell):
    """Base of the wrappers: forwards `state_size`, `output_size`, `get_initial_state` and
    building to the wrapped cell, and calls it through `_call_wrapped_cell`."""

    def __init__(self, cell: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not callable(getattr(cell, "call", None)) or not hasattr(cell, "state_size"):
            raise TypeError(f"{type(self).__name__}: `cell` must be a Keras RNN cell (with "
                            f"`call(inputs, states)` and `state_size`), got {cell!r}.")
        self.cell = cell

    @property
    def wrapped_cell(self) -> Any:
        """The wrapped cell."""
        return self.cell

    @property
    def state_size(self) -> Any:
        return self.cell.state_size

    @property
    def output_size(self) -> Any:
        return self.cell.output_size

    def get_initial_state(self, inputs: Any = None, batch_size: int | None = None,
                          dtype: Any = None) -> Any:
        """The wrapped cell's initial state."""
        return self.cell.get_initial_state(inputs=inputs, batch_size=batch_size, dtype=dtype)

    def zero_state(self, batch_size: int, dtype: Any) -> Any:
        """The wrapped cell's `zero_state(batch_size, dtype)` (a TF1 cell's zero-filled state;
        AttributeError for a cell without one, such as a Keras cell: use
        `get_initial_state`)."""
        return self.cell.zero_state(batch_size, dtype)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Runs update callables as `Layer.add_update`; `inputs` is deprecated (TF logs a
        warning for it) and unused."""
        if inputs is not None:
            _log.warning("`add_update` `inputs` kwarg has been deprecated. You no longer need to "
                         "pass a value to `inputs` as it is being automatically inferred.")
        super().add_update(updates)

    def get_losses_for(self, inputs: Any) -> list:
        """Deprecated (TF's Keras 2 layers): warns and returns the layer's `losses`."""
        warnings.warn("`layer.get_losses_for` is deprecated and will be removed in a future "
                      "version. Please use `layer.losses` instead.", stacklevel=2)
        return self.losses

    def get_updates_for(self, inputs: Any) -> list:
        """Deprecated (TF's Keras 2 layers): warns and returns the layer's updates, none here
        (updates are applied as they are made)."""
        warnings.warn("`layer.get_updates_for` is deprecated and will be removed in a future "
                      "version. Please use `layer.updates` method instead.", stacklevel=2)
        return []

    def build(self, inputs_shape: Any) -> None:
        """Builds the wrapped cell for inputs of `inputs_shape` (TF's name)."""
        if not getattr(self.cell, "built", False):
            self.cell.build(inputs_shape)
        self.built = True

    def call(self, inputs: Any, state: Any, **kwargs: Any) -> Any:
        """Runs the wrapped cell on `inputs` and `state` (TF's name: the cell's states) with
        the wrapper's behaviour: `(output, new_states)`."""
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__,
                                       **kwargs)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        config = {"cell": serialize_keras_object(self.cell)}
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Any:
        config = dict(config)
        cell = deserialize_keras_object(config.pop("cell"), custom_objects=custom_objects)
        return cls(cell, **config)


class DropoutWrapper(_RNNCellWrapper):
    """Operator adding dropout to the inputs, states and outputs of the given cell (Keras
    2.15's `tf.nn.RNNCellDropoutWrapper`): each kept with probability `input_keep_prob`,
    `state_keep_prob`, `output_keep_prob` and scaled by `1 / keep_prob`; the LSTM memory state
    is not dropped (`dropout_state_filter_visitor` chooses); `variational_recurrent=True`
    draws one mask per wrapper and reuses it at every step."""

    def __init__(self, cell: Any, input_keep_prob: float = 1.0, output_keep_prob: float = 1.0,
                 state_keep_prob: float = 1.0, variational_recurrent: bool = False,
                 input_size: Any = None, dtype: Any = None, seed: int | None = None,
                 dropout_state_filter_visitor: Any = None, **kwargs: Any) -> None:
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(
                dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable. Received: "
                            f"{dropout_state_filter_visitor}")
        self._dropout_state_filter = (dropout_state_filter_visitor
                                      or _impl._default_dropout_state_filter_visitor)
        for prob, attr in ((input_keep_prob, "input_keep_prob"),
                           (state_keep_prob, "state_keep_prob"),
                           (output_keep_prob, "output_keep_prob")):
            value = float(prob)
            if value < 0 or value > 1:
                raise ValueError(f"Parameter {attr} must be between 0 and 1. Received {value}")
            setattr(self, f"_{attr}", value)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._generator: torch.Generator | None = None
        self._noise: dict[str, list[torch.Tensor]] = {}

    def _uniform(self, like: torch.Tensor) -> torch.Tensor:
        if self._seed is not None and self._generator is None:
            self._generator = torch.Generator(device=like.device)
            self._generator.manual_seed(int(self._seed))
        return torch.rand(like.shape, dtype=like.dtype, device=like.device,
                          generator=self._generator)

    def _dropout(self, values: Any, kind: str, keep_prob: float,
                 flags: list[bool] | None = None) -> Any:
        leaves = _impl.flatten(values)
        flags = flags if flags is not None else [True] * len(leaves)
        noise = self._noise.get(kind) if self._variational_recurrent else None
        if noise is None:
            noise = [self._uniform(v) for v in leaves]
            if self._variational_recurrent:
                self._noise[kind] = noise
        out = [torch.floor(keep_prob + n) * (v / keep_prob) if keep else v
               for v, n, keep in zip(leaves, noise, flags)]
        return _impl.pack_as(values, out)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> Any:
        if self._input_keep_prob < 1:
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if self._state_keep_prob < 1:
            flags = _impl._filter_mask(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._state_keep_prob, flags)
        if self._output_keep_prob < 1:
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state

    def get_config(self) -> dict:
        config = {"input_keep_prob": self._input_keep_prob,
                  "output_keep_prob": self._output_keep_prob,
                  "state_keep_prob": self._state_keep_prob,
                  "variational_recurrent": self._variational_recurrent,
                  "input_size": self._input_size, "seed": self._seed}
        return {**super().get_config(), **config}


class ResidualWrapper(_RNNCellWrapper):
    """RNNCell wrapper that ensures cell inputs are added to the outputs (Keras 2.15's
    `tf.nn.RNNCellResidualWrapper`): `residual_fn(inputs, outputs)`, by default
    `inputs + outputs` over matching structures."""

    def __init__(self, cell: Any, residual_fn: Any = None, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> Any:
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            if tuple(a.shape) != tuple(b.shape):
                raise ValueError(f"RNNCellResidualWrapper: the cell's inputs {tuple(a.shape)} "
                                 f"and outputs {tuple(b.shape)} must have one shape; pass a "
                                 "residual_fn.")
            return a + b

        if self._residual_fn is not None:
            return self._residual_fn(inputs, outputs), new_state
        return _impl.map_structure(add, inputs, outputs), new_state


class DeviceWrapper(_RNNCellWrapper):
    """Operator that ensures an RNNCell runs on a particular device (Keras 2.15's
    `tf.nn.RNNCellDeviceWrapper`): inputs and states move to `device` (a torch device or a TF
    device string such as '/cpu:0')."""

    def __init__(self, cell: Any, device: Any, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._device = device

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> Any:
        device = _impl._parse_device(self._device)
        weight = next(self.cell.parameters(), None)
        if weight is not None and weight.device.type not in ("meta", device.type):
            # the cell's weights live elsewhere (made on the GPU): its ops run where they are,
            # as TF copies a variable to the op's device only to read it
            device = weight.device

        def move(t: Any) -> Any:
            return t.to(device) if isinstance(t, torch.Tensor) else t

        return cell_call_fn(_impl.map_structure(move, inputs), _impl.map_structure(move, state),
                            **kwargs)

    def zero_state(self, batch_size: int, dtype: Any) -> Any:
        """The wrapped cell's `zero_state(batch_size, dtype)`, on the wrapper's device."""
        device = _impl._parse_device(self._device)
        return _impl.map_structure(
            lambda t: t.to(device) if isinstance(t, torch.Tensor) else t,
            self.cell.zero_state(batch_size, dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "device": str(self._device)}
