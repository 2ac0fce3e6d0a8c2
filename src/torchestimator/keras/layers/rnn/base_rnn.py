"""`RNN`: runs a recurrent cell over the time axis of a sequence (`tf.keras.layers.RNN`).

The loop follows Keras' `backend.rnn`: at a masked time step the states keep
their previous values and the output repeats the previous step's output
(zeros before the first unmasked step, or always zeros with
`zero_output_for_mask=True`, which `Bidirectional` sets). `go_backwards`
processes the reversed sequence and returns the reversed output sequence.

With a built-in cell (SimpleRNNCell, LSTMCell, GRUCell: what SimpleRNN, LSTM
and GRU use) the whole sequence goes to torch's fused kernels when the cell's
configuration allows (see `_fused.py` and each cell's `_fused_mode`);
otherwise the plain step loop below runs, with a built-in cell's input
projection done for all time steps in one matrix product.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import torch

from torchestimator.keras._registry import (
    deserialize_keras_object,
    serialize_keras_object,
)
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.rnn import _fused, _utils
from torchestimator.keras.layers.rnn._cell_base import _BuiltinCell
from torchestimator.keras.layers.rnn.stacked_rnn_cells import StackedRNNCells


class RNN(Layer):
    """Base class for recurrent layers: applies `cell` to every time step of the input.

    Args:
        cell: an RNN cell (a layer with `call(inputs, states)` returning
            `(output, new_states)` and a `state_size` attribute), or a list of
            cells (stacked with `StackedRNNCells`).
        return_sequences: return the output of every time step
            `(batch, timesteps, units)` instead of only the last `(batch, units)`.
        return_state: also return the final states: `[output] + states`.
        go_backwards: process the input sequence backwards and return the
            reversed sequence.
        stateful: reuse the last states of each batch as the initial states of
            the next batch (sample i continues sample i); `reset_states()`
            starts over. Needs the same batch size on every call.
        unroll: accepted for Keras compatibility; the loop is always a Python
            loop over time steps (or a fused torch kernel), so it changes nothing.
        time_major: inputs and outputs are `(timesteps, batch, ...)` instead of
            `(batch, timesteps, ...)`.
        zero_output_for_mask: (keyword) output zeros at masked time steps
            instead of repeating the previous output.

    Call arguments: `inputs` (3D tensor, or a list `[inputs, *initial_states, *constants]`),
    `mask` (bool `(batch, timesteps)`, True = use the step), `training`,
    `initial_state` (list of state tensors; zeros by default), `constants` (list of tensors
    the cell receives unchanged at every step, as `cell.call(x, states, constants=...)`; the
    cell's `call` must take `constants`).
    """

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        time_major: bool = False,
        **kwargs: Any,
    ):
        zero_output_for_mask = bool(kwargs.pop("zero_output_for_mask", False))
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not callable(getattr(cell, "call", None)):
            raise ValueError(
                f"Argument `cell` of {type(self).__name__} should have a `call` method. "
                f"Received: cell={cell!r}"
            )
        if not hasattr(cell, "state_size"):
            raise ValueError(
                "The RNN cell should have a `state_size` attribute (an integer, or a list of "
                f"integers, one per state). Received: cell={cell!r}"
            )
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.time_major = bool(time_major)
        self.zero_output_for_mask = zero_output_for_mask
        self.supports_masking = True
        self._states: list[torch.Tensor] | None = None
        self._state_sizes = _utils.flat_state_sizes(cell.state_size)
        self._num_constants = 0  # the trailing entries of a list input that are constants

    # ------------------------------------------------------------------ shapes
    @property
    def _output_size(self) -> int:
        size = getattr(self.cell, "output_size", None)
        return int(size) if size is not None else self._state_sizes[0]

    def build(self, input_shape: Any) -> None:
        """Builds the cell for one time step of `input_shape` and fixes the input spec."""
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], (tuple, list)):
            input_shape = input_shape[0]
        shape = tuple(input_shape)
        if len(shape) < 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=3, '
                f"found ndim={len(shape)}. Full shape received: {shape}. Recurrent layers take "
                "(batch, timesteps, features) inputs."
            )
        step_shape = shape[1:] if self.time_major else (shape[0],) + shape[2:]
        _utils.build_sublayer(self.cell, step_shape, self._build_device)
        batch_index, time_index = (1, 0) if self.time_major else (0, 1)
        spec = list(shape)
        if not self.stateful:
            spec[batch_index] = None
        spec[time_index] = None
        self.input_spec = InputSpec(shape=tuple(spec))
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns the output shape (and the states' shapes when `return_state`)."""
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], (tuple, list)):
            input_shape = input_shape[0]
        shape = tuple(input_shape)
        batch, time = (shape[1], shape[0]) if self.time_major else (shape[0], shape[1])
        if self.return_sequences:
            out = (time, batch, self._output_size) if self.time_major else (batch, time, self._output_size)
        else:
            out = (batch, self._output_size)
        if self.return_state:
            return [out] + [(batch, size) for size in self._state_sizes]
        return out

    def compute_output_spec(
        self, inputs: Any, mask: Any = None, training: Any = None, initial_state: Any = None, **kwargs: Any
    ) -> Any:
        """Returns the symbolic outputs for symbolic inputs (with the output mask attached)."""
        x = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
        shapes = self.compute_output_shape(x.shape)
        if mask is None:
            mask = getattr(x, "_keras_mask", None)
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if self.return_state:
            out = [KerasTensor(s, self._compute_dtype) for s in shapes]
            seq = out[0]
        else:
            out = seq = KerasTensor(shapes, self._compute_dtype)
        if self.return_sequences and isinstance(mask, KerasTensor):
            seq._keras_mask = mask
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The output mask: the input's time mask when `return_sequences`, else None."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self._state_sizes)
        return output_mask

    # ------------------------------------------------------------------ states
    @property
    def states(self) -> list:
        """The current states of a stateful layer (a list of tensors, or Nones before any call)."""
        if self._states is None:
            return [None] * len(self._state_sizes)
        return list(self._states)

    def get_initial_state(self, inputs: torch.Tensor) -> list[torch.Tensor]:
        """Returns zero states for `inputs` (one `(batch, size)` tensor per state)."""
        x = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
        batch = x.shape[1] if self.time_major else x.shape[0]
        dtype = x.dtype if x.is_floating_point() else self._compute_dtype
        return [torch.zeros((batch, s), dtype=dtype, device=x.device) for s in self._state_sizes]

    def reset_states(self, states: Any = None) -> None:
        """Resets the states of a stateful layer to zeros, or to the given numpy values/tensors.

        Raises AttributeError if the layer is not stateful, ValueError if the
        number or shapes of `states` do not match the cell's state sizes.
        """
        if not self.stateful:
            raise AttributeError(
                f'Layer "{self.name}" must be stateful (created with stateful=True) to reset its '
                "states."
            )
        if states is None:
            if self._states is not None:
                self._states = [torch.zeros_like(s) for s in self._states]
            return
        values = list(states) if isinstance(states, (list, tuple)) else [states]
        if len(values) != len(self._state_sizes):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self._state_sizes)} state(s), but it received '
                f"{len(values)} state value(s)."
            )
        out = []
        for i, (value, size) in enumerate(zip(values, self._state_sizes)):
            t = torch.as_tensor(np.asarray(value) if not isinstance(value, torch.Tensor) else value)
            if t.ndim != 2 or t.shape[1] != size:
                raise ValueError(
                    f'State {i} of layer "{self.name}" should have shape (batch_size, {size}); '
                    f"received a value of shape {tuple(t.shape)}."
                )
            out.append(t.to(self._compute_dtype))
        self._states = out

    reset_state = reset_states

    def _initial_states(self, x: torch.Tensor, initial_state: Any) -> list[torch.Tensor]:
        batch = x.shape[1]
        if initial_state is not None:
            states = list(initial_state)
            if len(states) != len(self._state_sizes):
                raise ValueError(
                    f'Layer "{self.name}": an `initial_state` was passed that is not compatible '
                    f"with `cell.state_size`. Received {len(states)} initial state tensor(s); "
                    f"however `cell.state_size` is {self.cell.state_size}."
                )
            out = []
            for i, (s, size) in enumerate(zip(states, self._state_sizes)):
                s = torch.as_tensor(s) if not isinstance(s, torch.Tensor) else s
                if tuple(s.shape) != (batch, size):
                    raise ValueError(
                        f'Layer "{self.name}": initial state {i} should have shape '
                        f"({batch}, {size}) (batch, state size); received {tuple(s.shape)}."
                    )
                out.append(s.to(device=x.device, dtype=x.dtype))
            return out
        if self.stateful and self._states is not None:
            held = self._states[0].shape[0]
            if held != batch:
                raise ValueError(
                    f'Layer "{self.name}" is stateful and holds states for a batch of {held} '
                    f"samples, but received a batch of {batch}. A stateful RNN needs the same "
                    "batch size on every call; call reset_states() after setting it to None "
                    "(layer._states = None) or build the model with a fixed batch size."
                )
            return [s.to(device=x.device, dtype=x.dtype) for s in self._states]
        return [torch.zeros((batch, s), dtype=x.dtype, device=x.device) for s in self._state_sizes]

    # ------------------------------------------------------------------ call
    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: bool | None = None,
        initial_state: Any = None,
        constants: Any = None,
    ) -> Any:
        """Runs the cell over the sequence; returns the last output or all outputs, and states."""
        inputs, initial_state, constants = self._split_inputs(inputs, initial_state, constants)
        if isinstance(initial_state, torch.Tensor):
            initial_state = [initial_state]
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        x = inputs if self.time_major else inputs.transpose(0, 1)
        states = self._initial_states(x, initial_state)
        mask_tm = None
        if mask is not None:
            mask_tm = mask.to(torch.bool)
            while mask_tm.ndim > 2:
                mask_tm = mask_tm[..., 0]
            if not self.time_major:
                mask_tm = mask_tm.transpose(0, 1)
        if constants is not None:
            seq, last, states = self._loop(x, states, mask_tm, bool(training), constants)
        else:
            seq, last, states = self._run(x, states, mask_tm, bool(training))
        if self.stateful and not CONTEXT.tracing:
            self._states = [s.detach() for s in states]
        if self.return_sequences:
            output = seq if self.time_major else seq.transpose(0, 1)
        else:
            output = last
        if self.return_state:
            return [output] + list(states)
        return output

    def _split_inputs(self, inputs: Any, initial_state: Any, constants: Any) -> tuple:
        """(inputs, initial_state, constants) of a call, as TF's: a list input is
        `[inputs, *initial_states, *constants]` (the last `num_constants`, as set by an earlier
        call's `constants=` or the config); `constants=` sets that count. Raises ValueError
        when there are constants and the cell's `call` does not take them."""
        inputs, initial_state, constants = _utils.split_call_inputs(
            self, inputs, initial_state, constants)
        if constants is not None:
            call = getattr(self.cell, "call", None)
            try:
                takes = "constants" in inspect.signature(call).parameters
            except (TypeError, ValueError):
                takes = False
            if not takes:
                raise ValueError(
                    f"RNN cell {self.cell} does not support constants (its `call` takes no "
                    f"`constants` argument). Received: constants={constants}"
                )
        return inputs, initial_state, constants

    def _run(
        self, x: torch.Tensor, states: list, mask_tm: torch.Tensor | None, training: bool
    ) -> tuple:
        cell = self.cell
        mode = cell._fused_mode(training) if isinstance(cell, _BuiltinCell) else None
        fused = mode is not None and x.shape[0] > 0
        lengths = None
        if mask_tm is not None and x.device.type != "meta":
            if fused:  # one read-back: is the mask right-padded, and the lengths for packing
                lengths = _fused.right_padded_lengths(mask_tm)
                if lengths is not None and bool((lengths.host == mask_tm.shape[0]).all()):
                    mask_tm, lengths = None, None  # nothing masked
            elif bool(mask_tm.all()):
                mask_tm = None
        if fused and (mask_tm is None or lengths is not None):
            seq, states = self._fused_forward(mode, x, states, lengths, training)
            return seq, seq[-1], states
        return self._loop(x, states, mask_tm, training)

    def _fused_forward(
        self, mode: str, x: torch.Tensor, states: list, lengths: Any, training: bool
    ) -> tuple:
        """The whole sequence on torch's fused kernel (input dropout: one mask for all steps)."""
        cell = self.cell
        cell.reset_dropout_mask()
        masks = cell.get_dropout_mask_for_cell(x, training, count=1)
        if masks is not None:
            x = x * masks[0]
        return _fused.run(
            mode, x, states, cell._torch_params(x.dtype), cell.use_bias, lengths,
            self.go_backwards, self.zero_output_for_mask,
        )

    def _loop(self, x: torch.Tensor, states: list, mask_tm: torch.Tensor | None, training: bool,
              constants: list | None = None) -> tuple:
        """The step loop of Keras' `backend.rnn` over time-major `x` (the cell gets
        `constants=` at every step when there are constants)."""
        cell = self.cell
        if self.go_backwards:
            x = x.flip(0)
            mask_tm = mask_tm.flip(0) if mask_tm is not None else None
        for c in getattr(cell, "cells", [cell]):
            if hasattr(c, "reset_dropout_mask"):
                c.reset_dropout_mask()
                c.reset_recurrent_dropout_mask()
        steps = x.shape[0]
        if steps == 0:
            raise ValueError(
                f'Layer "{self.name}" received a sequence with 0 time steps; it needs at least one.'
            )
        builtin = isinstance(cell, _BuiltinCell) and constants is None
        if builtin:
            projected = cell._project(x, training)
            step_fn = lambda t, s: cell._step(projected[t], s, training)  # noqa: E731
        else:
            accepts_training = getattr(cell, "_call_accepts_training", False)
            kwargs = {"training": training} if accepts_training else {}
            if constants is not None:
                kwargs["constants"] = constants
            step_fn = lambda t, s: cell.call(x[t], s, **kwargs)  # noqa: E731
        outputs = []
        previous = None
        output = None
        for t in range(steps):
            output, new_states = step_fn(t, states)
            if isinstance(new_states, torch.Tensor):
                new_states = [new_states]
            new_states = list(new_states)
            if mask_tm is not None:
                m = mask_tm[t]
                new_states = [
                    torch.where(m.view(-1, *([1] * (n.ndim - 1))), n, s)
                    for n, s in zip(new_states, states)
                ]
                m_out = m.view(-1, *([1] * (output.ndim - 1)))
                if previous is None or self.zero_output_for_mask:
                    previous = torch.zeros_like(output)
                output = torch.where(m_out, output, previous)
                previous = output
            states = new_states
            if self.return_sequences:
                outputs.append(output)
        seq = torch.stack(outputs) if self.return_sequences else None
        return seq, output, states

    # ------------------------------------------------------------------ config
    def _rnn_config(self) -> dict:
        config = {
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "time_major": self.time_major,
        }
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = True
        if self._num_constants:
            config["num_constants"] = self._num_constants
        return config

    def get_config(self) -> dict:
        """Returns the layer's config: the serialized cell and the RNN arguments."""
        config = super().get_config()
        config.update(self._rnn_config())
        config["cell"] = serialize_keras_object(self.cell)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> RNN:
        """Creates the layer from `get_config()`'s output (deserializing the cell, looking its
        class up in `custom_objects` too)."""
        config = dict(config)
        num_constants = config.pop("num_constants", 0)
        cell = deserialize_keras_object(config.pop("cell"), custom_objects=custom_objects)
        layer = cls(cell, **config)
        layer._num_constants = num_constants
        return layer
