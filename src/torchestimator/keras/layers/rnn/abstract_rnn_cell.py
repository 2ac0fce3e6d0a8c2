"""`AbstractRNNCell`: the base class of RNN cells with custom behaviour."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.rnn import _utils


class AbstractRNNCell(Layer):
    """Abstract object representing an RNN cell.

    This is the base class for implementing RNN cells with custom behavior.
    Every cell must have the properties `state_size` and `output_size` and
    implement `call` with the signature `(output, next_state) = call(input,
    states)`; `RNN(cell)` runs it over the time axis.

    Example:

        class MinimalRNNCell(AbstractRNNCell):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units

            @property
            def state_size(self):
                return self.units

            @property
            def output_size(self):
                return self.units

            def build(self, input_shape):
                self.kernel = self.add_weight(
                    "kernel", shape=(input_shape[-1], self.units))
                self.built = True

            def call(self, inputs, states):
                output = inputs @ self.kernel + states[0]
                return output, [output]
    """

    def call(self, inputs: Any, states: Any) -> Any:
        """The logic of one RNN step: returns `(output, next_states)`; `states` has the
        shape `(batch, state_size)` (zeros at the first step unless given)."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement `call(inputs, states)` returning "
            "(output, next_states)."
        )

    @property
    def state_size(self) -> Any:
        """Size(s) of the state(s) used by this cell: an int or a tuple of ints."""
        raise NotImplementedError(f"{type(self).__name__} must define the `state_size` property.")

    @property
    def output_size(self) -> Any:
        """Integer: the size of the outputs produced by this cell."""
        raise NotImplementedError(
            f"{type(self).__name__} must define the `output_size` property."
        )

    def get_initial_state(
        self, inputs: Any = None, batch_size: int | None = None, dtype: Any = None
    ) -> Any:
        """Returns zero-filled states of shape `(batch_size, size)`, one per entry of
        `state_size` (a single tensor when `state_size` is an int)."""
        device = None
        if inputs is not None:
            batch_size = inputs.shape[0]
            dtype = inputs.dtype if dtype is None else dtype
            device = inputs.device
        dtype = dtype or self._compute_dtype
        states = [
            torch.zeros((batch_size, size), dtype=dtype, device=device)
            for size in _utils.flat_state_sizes(self.state_size)
        ]
        if isinstance(self.state_size, (list, tuple)):
            return states
        return states[0]
