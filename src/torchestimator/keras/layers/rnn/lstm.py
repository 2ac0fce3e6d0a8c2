"""`LSTMCell` and `LSTM` (Hochreiter & Schmidhuber 1997), with Keras' weight layout.

Weights: `kernel (input_dim, 4*units)`, `recurrent_kernel (units, 4*units)`,
`bias (4*units,)`, gates in the order i, f, c, o — the same order as torch's
i, f, g, o, so the fused kernel takes the transposed matrices as they are.
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


class LSTMCell(_BuiltinCell):
    """Cell class for the LSTM layer: processes one time step.

    Args:
        units: positive integer, dimensionality of the output space.
        activation: activation of the cell and hidden state (default tanh).
        recurrent_activation: activation of the gates (default sigmoid).
        use_bias: whether the layer uses a bias vector.
        kernel_initializer / recurrent_initializer / bias_initializer: for the
            `kernel` (default glorot_uniform), `recurrent_kernel` (default
            orthogonal) and `bias` (default zeros) weights.
        unit_forget_bias: add 1 to the forget-gate bias at initialization
            (default True, as Jozefowicz et al. recommend).
        kernel_regularizer / recurrent_regularizer / bias_regularizer,
        kernel_constraint / recurrent_constraint / bias_constraint: as Dense.
        dropout: fraction of the input units to drop (same mask at every step).
        recurrent_dropout: fraction of the state units to drop.

    Call: `cell(inputs, states=[h, c], training)` returns `(h, [h, c])`.
    """

    _gates = 4

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
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
        self.unit_forget_bias = bool(unit_forget_bias)
        if implementation not in (0, 1, 2):
            raise ValueError(f"LSTMCell: `implementation` must be 1 or 2, got {implementation!r}.")
        self.implementation = 1 if self.recurrent_dropout or implementation == 0 else implementation
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        """Creates `kernel`, `recurrent_kernel` and (with `use_bias`) `bias`."""
        self._add_kernels(self._check_input_shape(input_shape))
        if self.use_bias:
            if self.unit_forget_bias:
                base, units = self.bias_initializer, self.units

                def bias_init(shape: Any, dtype: Any = None) -> torch.Tensor:
                    return torch.cat([
                        torch.as_tensor(base((units,), dtype=dtype)),
                        torch.ones((units,), dtype=dtype),
                        torch.as_tensor(base((2 * units,), dtype=dtype)),
                    ])

                initializer: Any = bias_init
            else:
                initializer = self.bias_initializer
            self.bias = self.add_weight(
                "bias", shape=(4 * self.units,), initializer=initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )
        else:
            self.bias = None
        self.built = True

    def _step(self, z: torch.Tensor, states: list, training: bool | None) -> tuple:
        h_tm1, c_tm1 = states[0], states[1]
        z = z + self._recurrent(h_tm1, self.recurrent_kernel, training)
        i, f, c, o = z.chunk(4, dim=-1)
        i = self.recurrent_activation(i)
        f = self.recurrent_activation(f)
        c = f * c_tm1 + i * self.activation(c)
        o = self.recurrent_activation(o)
        h = o * self.activation(c)
        return h, [h, c]

    def _fused_mode(self, training: bool) -> str | None:
        fits = (
            _utils.is_tanh(self.activation)
            and _utils.is_sigmoid(self.recurrent_activation)
            and (self.recurrent_dropout == 0.0 or not training)
        )
        return "lstm" if fits else None

    def _torch_params(self, dtype: torch.dtype) -> list[torch.Tensor]:
        # Keras' gate order i, f, c, o is torch's i, f, g, o: only transpose.
        params = [
            _utils.cast_weight(self.kernel, dtype).t(),
            _utils.cast_weight(self.recurrent_kernel, dtype).t(),
        ]
        if self.use_bias:
            bias = _utils.cast_weight(self.bias, dtype)
            params += [bias, torch.zeros_like(bias)]
        return params

    def call(self, inputs: torch.Tensor, states: list, training: bool | None = None) -> tuple:
        """One step: returns `(h, [h, c])` for inputs `(batch, features)` and states `[h, c]`."""
        return self._step(self._project(inputs, training), list(states), training)

    def get_config(self) -> dict:
        """Returns the cell's constructor arguments (Keras 2.15 keys)."""
        config = super().get_config()
        config.update(self._common_config())
        config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["unit_forget_bias"] = self.unit_forget_bias
        config["implementation"] = self.implementation
        return config


class LSTM(DropoutRNNCellMixin, _BuiltinRNN):
    """Long Short-Term Memory layer - Hochreiter 1997 (`tf.keras.layers.LSTM`).

    Takes inputs `(batch, timesteps, features)`; returns `(batch, units)`, or
    `(batch, timesteps, units)` with `return_sequences`, plus the final `[h, c]`
    with `return_state`. Uses torch's fused LSTM kernel (cuDNN on a GPU) when
    `activation` is tanh, `recurrent_activation` is sigmoid, `recurrent_dropout`
    is 0 (or not training) and the mask, if any, is right-padded; otherwise a
    step loop with the same numerics.

    Args: those of `LSTMCell`, plus `activity_regularizer`, `return_sequences`,
    `return_state`, `go_backwards`, `stateful`, `time_major`, `unroll` (see `RNN`).
    Weights (Keras layout, through `cell`): `kernel (features, 4*units)`,
    `recurrent_kernel (units, 4*units)`, `bias (4*units,)`, gates i, f, c, o.
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
        unit_forget_bias: bool = True,
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
        time_major: bool = False,
        unroll: bool = False,
        **kwargs: Any,
    ):
        kwargs.pop("return_runtime", None)
        cell = LSTMCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            implementation=kwargs.pop("implementation", 2),
            dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state,
            go_backwards=go_backwards, stateful=stateful, time_major=time_major, unroll=unroll,
            activity_regularizer=activity_regularizer, **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)

    recurrent_activation = cell_property("recurrent_activation", "The gates' activation.")
    unit_forget_bias = cell_property("unit_forget_bias", "Whether the forget-gate bias starts at 1.")
    implementation = cell_property("implementation", "1 (one product per gate) or 2 (fused).")
