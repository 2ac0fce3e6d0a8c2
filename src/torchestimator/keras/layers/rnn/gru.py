"""`GRUCell` and `GRU` (Cho et al. 2014), with Keras' weight layout.

Weights: `kernel (input_dim, 3*units)` and `recurrent_kernel (units, 3*units)`
with gates in Keras' order z (update), r (reset), h (candidate); `bias` is
`(2, 3*units)` (input bias, recurrent bias) with `reset_after=True` (the
default, and what torch's GRU computes) or `(3*units,)` with `reset_after=False`.
torch orders the gates r, z, n, so the fused path swaps the first two blocks.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import activations
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.rnn import _utils
from torchestimator.keras.layers.rnn._builtin_rnn import _BuiltinRNN, cell_property
from torchestimator.keras.layers.rnn._cell_base import _BuiltinCell
from torchestimator.keras.layers.rnn._dropout import DropoutRNNCellMixin


class GRUCell(_BuiltinCell):
    """Cell class for the GRU layer: processes one time step.

    Args:
        units: positive integer, dimensionality of the output space.
        activation: activation of the candidate state (default tanh).
        recurrent_activation: activation of the update and reset gates (default sigmoid).
        use_bias, kernel_initializer ('glorot_uniform'), recurrent_initializer
            ('orthogonal'), bias_initializer ('zeros'), the regularizers and
            constraints, dropout, recurrent_dropout: as `LSTMCell`.
        reset_after: apply the reset gate after the recurrent matrix product
            (True, the default and cuDNN's convention) or before (False).

    Call: `cell(inputs, states=[h], training)` returns `(h, [h])`.
    """

    _gates = 3

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        reset_after: bool = True,
        **kwargs: Any,
    ):
        implementation = kwargs.pop("implementation", 2)
        kwargs.pop("enable_caching_device", None)
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer,
            bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
            kernel_constraint, recurrent_constraint, bias_constraint, dropout,
            recurrent_dropout, **kwargs,
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)
        if implementation not in (0, 1, 2):
            raise ValueError(f"GRUCell: `implementation` must be 1 or 2, got {implementation!r}.")
        self.implementation = 1 if self.recurrent_dropout or implementation == 0 else implementation
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        """Creates `kernel`, `recurrent_kernel` and `bias` ((2, 3*units) with `reset_after`)."""
        self._add_kernels(self._check_input_shape(input_shape))
        if self.use_bias:
            shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
            self.bias = self.add_weight(
                "bias", shape=shape, initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )
        else:
            self.bias = None
        self.built = True

    def _input_bias(self) -> torch.Tensor | None:
        if not self.use_bias:
            return None
        return self.bias[0] if self.reset_after else self.bias

    def _step(self, x: torch.Tensor, states: list, training: bool | None) -> tuple:
        h_tm1 = states[0]
        units = self.units
        x_z, x_r, x_h = x.split(units, dim=-1)
        if self.reset_after:
            inner = self._recurrent(h_tm1, self.recurrent_kernel, training)
            if self.use_bias:
                inner = inner + _utils.cast_weight(self.bias[1], inner.dtype)
            r_z, r_r, r_h = inner.split(units, dim=-1)
            z = self.recurrent_activation(x_z + r_z)
            r = self.recurrent_activation(x_r + r_r)
            hh = self.activation(x_h + r * r_h)
        else:
            kernel = _utils.cast_weight(self.recurrent_kernel, h_tm1.dtype)
            masks = self.get_recurrent_dropout_mask_for_cell(h_tm1, training, count=3)
            h_z, h_r, h_h = (h_tm1 * m for m in masks) if masks is not None else (h_tm1,) * 3
            z = self.recurrent_activation(x_z + h_z @ kernel[:, :units])
            r = self.recurrent_activation(x_r + h_r @ kernel[:, units:2 * units])
            hh = self.activation(x_h + (r * h_h) @ kernel[:, 2 * units:])
        h = z * h_tm1 + (1.0 - z) * hh
        return h, [h]

    def _fused_mode(self, training: bool) -> str | None:
        fits = (
            self.reset_after
            and _utils.is_tanh(self.activation)
            and _utils.is_sigmoid(self.recurrent_activation)
            and (self.recurrent_dropout == 0.0 or not training)
        )
        return "gru" if fits else None

    def _torch_params(self, dtype: torch.dtype) -> list[torch.Tensor]:
        # Keras orders the gates z, r, h; torch r, z, n.
        units = self.units
        params = [
            _zrh_to_rzn(_utils.cast_weight(self.kernel, dtype), units).t(),
            _zrh_to_rzn(_utils.cast_weight(self.recurrent_kernel, dtype), units).t(),
        ]
        if self.use_bias:
            bias = _zrh_to_rzn(_utils.cast_weight(self.bias, dtype), units)
            params += [bias[0], bias[1]]
        return params

    def call(self, inputs: torch.Tensor, states: Any, training: bool | None = None) -> tuple:
        """One step: returns `(h, [h])` for inputs `(batch, features)` and states `[h]`."""
        states = [states] if isinstance(states, torch.Tensor) else list(states)
        return self._step(self._project(inputs, training), states, training)

    def get_config(self) -> dict:
        """Returns the cell's constructor arguments (Keras 2.15 keys)."""
        config = super().get_config()
        config.update(self._common_config())
        config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["implementation"] = self.implementation
        config["reset_after"] = self.reset_after
        return config


def _zrh_to_rzn(w: torch.Tensor, units: int) -> torch.Tensor:
    """Reorders the last-axis gate blocks from Keras' z, r, h to torch's r, z, n."""
    z, r, h = w.split(units, dim=-1)
    return torch.cat([r, z, h], dim=-1)


class GRU(DropoutRNNCellMixin, _BuiltinRNN):
    """Gated Recurrent Unit - Cho et al. 2014 (`tf.keras.layers.GRU`).

    Takes inputs `(batch, timesteps, features)`; returns `(batch, units)`, or
    `(batch, timesteps, units)` with `return_sequences`, plus the final state
    with `return_state`. Uses torch's fused GRU kernel (cuDNN on a GPU) when
    `reset_after` is True, the activations are tanh/sigmoid, `recurrent_dropout`
    is 0 (or not training) and the mask, if any, is right-padded.

    Args: those of `GRUCell` (including `reset_after=True`), plus
    `activity_regularizer`, `return_sequences`, `return_state`, `go_backwards`,
    `stateful`, `time_major`, `unroll` (see `RNN`).
    Weights (Keras layout): `kernel (features, 3*units)`, `recurrent_kernel
    (units, 3*units)`, `bias (2, 3*units)` (or `(3*units,)` without reset_after),
    gates z, r, h.
    """

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        time_major: bool = False,
        reset_after: bool = True,
        **kwargs: Any,
    ):
        kwargs.pop("return_runtime", None)
        cell = GRUCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, reset_after=reset_after,
            implementation=kwargs.pop("implementation", 2),
            dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state,
            go_backwards=go_backwards, stateful=stateful, unroll=unroll, time_major=time_major,
            activity_regularizer=activity_regularizer, **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)

    recurrent_activation = cell_property("recurrent_activation", "The gates' activation.")
    reset_after = cell_property("reset_after", "Whether the reset gate follows the product.")
    implementation = cell_property("implementation", "1 (one product per gate) or 2 (fused).")
