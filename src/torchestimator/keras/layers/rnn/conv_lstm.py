"""`ConvLSTM1D`, `ConvLSTM2D`, `ConvLSTM3D`: LSTMs whose products are convolutions
(Shi et al. 2015), with Keras 2.15's weight layout and arguments.

Weights (the cell's, Keras layout): `kernel (*kernel_size, channels, 4*filters)`,
`recurrent_kernel (*kernel_size, filters, 4*filters)`, `bias (4*filters,)`, gates
i, f, c, o. One step: `z = conv(x_t, kernel, strides, padding, dilation) + bias +
conv(h_{t-1}, recurrent_kernel, 'same')`; `i, f, o = recurrent_activation(...)`,
`c = f * c_{t-1} + i * activation(z_c)`, `h = o * activation(c)`.

The input convolution of every time step is one torch convolution over the
whole sequence; the step loop convolves only the state. TF's 'same' padding is
asymmetric for even kernels (the extra element after): it is padded
explicitly then. Dropout masks have the shape of one step's input (or state),
drawn once per sequence and one per gate, as Keras' `DropoutRNNCellMixin`.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator.keras import activations, constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import (
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    same_padding,
)
from torchestimator.keras.layers.convolutional.base_conv import check_filters
from torchestimator.keras.layers.rnn import _utils
from torchestimator.keras.layers.rnn._builtin_rnn import cell_property
from torchestimator.keras.layers.rnn._dropout import DropoutRNNCellMixin
from torchestimator.keras.layers.rnn.base_rnn import RNN

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _conv(x: torch.Tensor, kernel: torch.Tensor, strides: tuple, padding: str, dilation: tuple) -> torch.Tensor:
    """TF's convolution of channels-first `x` by a torch-layout kernel (`padding` 'valid' or 'same')."""
    rank = x.ndim - 2
    pad: Any = 0
    if padding == "same":
        pairs = [
            same_padding(x.shape[2 + i], kernel.shape[2 + i], strides[i], dilation[i]) for i in range(rank)
        ]
        if all(a == b for a, b in pairs):
            pad = tuple(a for a, _ in pairs)
        else:
            flat: list[int] = []
            for before, after in reversed(pairs):
                flat += [before, after]
            x = F.pad(x, flat)
    return _CONV[rank](x, kernel, None, strides, pad, dilation)


class ConvLSTMCell(DropoutRNNCellMixin, Layer):
    """Cell of the ConvLSTM layers: one time step of a convolutional LSTM.

    Args: `rank` (1, 2 or 3) and those of `ConvLSTM2D` that are not about the
    sequence. Call: `cell(inputs, [h, c], training)` on one step's input
    (`(batch, *spatial, channels)` for channels_last) returns `(h, [h, c])`.
    """

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
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
        super().__init__(**kwargs)
        if rank not in (1, 2, 3):
            raise ValueError(f"Rank {rank} convolutions are not currently implemented. Received: rank={rank}")
        self.rank = rank
        self.filters = check_filters(filters)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{type(self).__name__}: `strides > 1` is not compatible with `dilation_rate > 1`. "
                f"Received: strides={self.strides}, dilation_rate={self.dilation_rate}."
            )
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.state_size = (self.filters, self.filters)
        self.channels_last = self.data_format == "channels_last"
        self.reset_dropout_mask()
        self.reset_recurrent_dropout_mask()

    # ------------------------------------------------------------------ weights
    def build(self, input_shape: Any) -> None:
        """Creates `kernel`, `recurrent_kernel` and (with `use_bias`) `bias` for one step's input shape."""
        shape = tuple(input_shape)
        channels = shape[-1] if self.channels_last else shape[1]
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs (last axis) should be defined. Found None. "
                f"Full input shape received: input_shape={shape}"
            )
        n = 4 * self.filters
        self.kernel = self.add_weight(
            "kernel", shape=self.kernel_size + (int(channels), n), initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", shape=self.kernel_size + (self.filters, n),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        if self.use_bias:
            initializer: Any = self.bias_initializer
            if self.unit_forget_bias:
                base, filters = self.bias_initializer, self.filters

                def initializer(shape: Any, dtype: Any = None) -> torch.Tensor:
                    return torch.cat([
                        torch.as_tensor(base((filters,), dtype=dtype)),
                        torch.ones((filters,), dtype=dtype),
                        torch.as_tensor(base((2 * filters,), dtype=dtype)),
                    ])

            self.bias = self.add_weight(
                "bias", shape=(n,), initializer=initializer, regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        else:
            self.bias = None
        self.built = True

    def _torch_kernel(self, weight: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        """`(*k, in, out)` -> torch's `(out, in, *k)`."""
        rank = self.rank
        return _utils.cast_weight(weight, dtype).permute(rank + 1, rank, *range(rank))

    def _mask(self, key: str, rate: float, like: torch.Tensor, training: bool | None, count: int) -> Any:
        """Dropout masks of the full shape of one step's tensor (Keras' ConvLSTM masks)."""
        if not training or rate <= 0.0:
            return None
        cached = self.__dict__.get(key)
        shape = tuple(like.shape)
        if cached is not None and tuple(cached[0].shape) == shape and len(cached) >= count:
            return cached
        keep = 1.0 - rate
        masks = [torch.empty(shape, dtype=like.dtype, device=like.device).bernoulli_(keep) / keep for _ in range(count)]
        self.__dict__[key] = masks
        return masks

    # ------------------------------------------------------------------ computation (channels first)
    def _to_torch(self, x: torch.Tensor) -> torch.Tensor:
        return x.movedim(-1, 1) if self.channels_last else x

    def _from_torch(self, x: torch.Tensor) -> torch.Tensor:
        return x.movedim(1, -1) if self.channels_last else x

    def _project(self, x: torch.Tensor) -> torch.Tensor:
        """The input convolution (+ bias) of channels-first steps `x (n, channels, *spatial)`:
        `(n, 4*filters, *out_spatial)`."""
        kernel = self._torch_kernel(self.kernel, x.dtype)
        z = _conv(x, kernel, self.strides, self.padding, self.dilation_rate)
        if self.use_bias:
            shape = (1, -1) + (1,) * self.rank
            z = z + _utils.cast_weight(self.bias, x.dtype).view(shape)
        return z

    def _project_gates(self, x: torch.Tensor, masks: list[torch.Tensor]) -> torch.Tensor:
        """The input convolution with one dropout mask per gate (masks broadcast over `x`'s steps)."""
        kernel = self._torch_kernel(self.kernel, x.dtype)
        parts = kernel.split(self.filters, dim=0)
        z = torch.cat(
            [_conv(x * m, k, self.strides, self.padding, self.dilation_rate) for m, k in zip(masks, parts)], dim=1
        )
        if self.use_bias:
            shape = (1, -1) + (1,) * self.rank
            z = z + _utils.cast_weight(self.bias, x.dtype).view(shape)
        return z

    def _step(self, z: torch.Tensor, h: torch.Tensor, c: torch.Tensor, recurrent: torch.Tensor,
              rec_masks: list[torch.Tensor] | None) -> tuple[torch.Tensor, torch.Tensor]:
        """One recurrent step on channels-first tensors; returns the new `(h, c)`."""
        ones = (1,) * self.rank
        if rec_masks is None:
            z = z + _conv(h, recurrent, ones, "same", ones)
        else:
            parts = recurrent.split(self.filters, dim=0)
            z = z + torch.cat([_conv(h * m, k, ones, "same", ones) for m, k in zip(rec_masks, parts)], dim=1)
        i, f, g, o = z.chunk(4, dim=1)
        i = self.recurrent_activation(i)
        f = self.recurrent_activation(f)
        c = f * c + i * self.activation(g)
        o = self.recurrent_activation(o)
        return o * self.activation(c), c

    def call(self, inputs: torch.Tensor, states: Any, training: bool | None = None) -> tuple:
        """One step: returns `(h, [h, c])` for one step's input and the states `[h, c]`."""
        h, c = (self._to_torch(s) for s in states)
        x = self._to_torch(inputs)
        in_masks = self.get_dropout_mask_for_cell(x, training, count=4)
        z = self._project(x) if in_masks is None else self._project_gates(x, in_masks)
        rec_masks = self.get_recurrent_dropout_mask_for_cell(h, training, count=4)
        h, c = self._step(z, h, c, self._torch_kernel(self.recurrent_kernel, x.dtype), rec_masks)
        h, c = self._from_torch(h), self._from_torch(c)
        return h, [h, c]

    def output_spatial(self, spatial: tuple) -> tuple:
        """The spatial shape of the states for an input of spatial shape `spatial`."""
        return tuple(
            conv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )

    def get_config(self) -> dict:
        """Returns the cell's constructor arguments (Keras 2.15 keys)."""
        config = super().get_config()
        config.update({
            "rank": self.rank,
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
        })
        return config


class _ConvLSTM(RNN):
    """The ConvLSTM layers of rank 1, 2 and 3 (not public): `RNN` over a `ConvLSTMCell`."""

    _rank = 2

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
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
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        **kwargs: Any,
    ):
        if kwargs.pop("unroll", False):
            raise TypeError(f"{type(self).__name__}: unrolling is not possible with convolutional RNNs. Received: unroll=True")
        if kwargs.pop("time_major", False):
            raise TypeError(f"{type(self).__name__}: `time_major=True` is not supported; inputs are (batch, time, ...).")
        cell = ConvLSTMCell(
            self._rank, filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout, recurrent_dropout=recurrent_dropout,
            name="conv_lstm_cell", dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, activity_regularizer=activity_regularizer, **kwargs,
        )
        self.input_spec = InputSpec(ndim=self._rank + 3)

    filters = cell_property("filters", "The number of output filters.")
    kernel_size = cell_property("kernel_size", "The size of the convolution window.")
    strides = cell_property("strides", "The strides of the input convolution.")
    padding = cell_property("padding", "'valid' or 'same' (the input convolution's).")
    data_format = cell_property("data_format", "'channels_last' or 'channels_first'.")
    dilation_rate = cell_property("dilation_rate", "The dilation rate of the input convolution.")
    activation = cell_property("activation", "The activation of the cell.")
    recurrent_activation = cell_property("recurrent_activation", "The gates' activation.")
    use_bias = cell_property("use_bias", "Whether the layer uses a bias vector.")
    kernel_initializer = cell_property("kernel_initializer", "Initializer of `kernel`.")
    recurrent_initializer = cell_property("recurrent_initializer", "Initializer of `recurrent_kernel`.")
    bias_initializer = cell_property("bias_initializer", "Initializer of `bias`.")
    unit_forget_bias = cell_property("unit_forget_bias", "Whether the forget-gate bias starts at 1.")
    kernel_regularizer = cell_property("kernel_regularizer", "Regularizer of `kernel`.")
    recurrent_regularizer = cell_property("recurrent_regularizer", "Regularizer of `recurrent_kernel`.")
    bias_regularizer = cell_property("bias_regularizer", "Regularizer of `bias`.")
    kernel_constraint = cell_property("kernel_constraint", "Constraint of `kernel`.")
    recurrent_constraint = cell_property("recurrent_constraint", "Constraint of `recurrent_kernel`.")
    bias_constraint = cell_property("bias_constraint", "Constraint of `bias`.")
    dropout = cell_property("dropout", "Fraction of the input units dropped.")
    recurrent_dropout = cell_property("recurrent_dropout", "Fraction of the state units dropped.")

    # ------------------------------------------------------------------ shapes
    def _spatial(self, step_shape: tuple) -> tuple:
        """The spatial part of one step's shape `(batch, ...)`."""
        return tuple(step_shape[1:-1]) if self.cell.channels_last else tuple(step_shape[2:])

    def _state_shape(self, batch: Any, step_shape: tuple) -> tuple:
        spatial = self.cell.output_spatial(self._spatial(step_shape))
        filters = self.cell.filters
        return (batch, *spatial, filters) if self.cell.channels_last else (batch, filters, *spatial)

    def build(self, input_shape: Any) -> None:
        """Builds the cell for one time step of `input_shape` `(batch, time, ...)`."""
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], (tuple, list)):
            input_shape = input_shape[0]
        shape = tuple(input_shape)
        if len(shape) != self._rank + 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim='
                f"{self._rank + 3}, found ndim={len(shape)}. Full shape received: {shape}. "
                f"{type(self).__name__} takes (batch, time, {'spatial, ' * self._rank}channels) inputs "
                "(channels first with data_format='channels_first')."
            )
        _utils.build_sublayer(self.cell, (shape[0],) + shape[2:], self._build_device)
        spec = list(shape)
        if not self.stateful:
            spec[0] = None
        spec[1] = None
        self.input_spec = InputSpec(shape=tuple(spec))
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns the output shape (and the two states' shapes when `return_state`)."""
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], (tuple, list)):
            input_shape = input_shape[0]
        shape = tuple(input_shape)
        state = self._state_shape(shape[0], (shape[0],) + shape[2:])
        out = (shape[0], shape[1]) + state[1:] if self.return_sequences else state
        if self.return_state:
            return [out, state, state]
        return out

    # ------------------------------------------------------------------ states
    def get_initial_state(self, inputs: torch.Tensor) -> list[torch.Tensor]:
        """Returns the zero states `[h, c]` for `inputs` `(batch, time, ...)`."""
        x = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
        shape = self._state_shape(x.shape[0], (x.shape[0],) + tuple(x.shape[2:]))
        dtype = x.dtype if x.is_floating_point() else self._compute_dtype
        return [torch.zeros(shape, dtype=dtype, device=x.device) for _ in range(2)]

    def _initial_states(self, x: torch.Tensor, initial_state: Any) -> list[torch.Tensor]:
        shape = self._state_shape(x.shape[1], tuple(x.shape[1:]))
        if initial_state is not None:
            states = [torch.as_tensor(s) if not isinstance(s, torch.Tensor) else s for s in initial_state]
            if len(states) != 2:
                raise ValueError(
                    f'Layer "{self.name}" expects 2 initial states [h, c]; received {len(states)}.'
                )
            for i, s in enumerate(states):
                if tuple(s.shape) != shape:
                    raise ValueError(
                        f'Layer "{self.name}": initial state {i} should have shape {shape}; received '
                        f"{tuple(s.shape)}."
                    )
            return [s.to(device=x.device, dtype=x.dtype) for s in states]
        if self.stateful and self._states is not None:
            if tuple(self._states[0].shape) != shape:
                raise ValueError(
                    f'Layer "{self.name}" is stateful and holds states of shape '
                    f"{tuple(self._states[0].shape)}, but this input needs states of shape {shape}. "
                    "A stateful layer needs the same batch size on every call; call reset_states()."
                )
            return [s.to(device=x.device, dtype=x.dtype) for s in self._states]
        return [torch.zeros(shape, dtype=x.dtype, device=x.device) for _ in range(2)]

    def reset_states(self, states: Any = None) -> None:
        """Resets the states of a stateful layer to zeros, or to the given `[h, c]` values."""
        if not self.stateful:
            raise AttributeError(
                f'Layer "{self.name}" must be stateful (created with stateful=True) to reset its states.'
            )
        if states is None:
            if self._states is not None:
                self._states = [torch.zeros_like(s) for s in self._states]
            return
        values = list(states) if isinstance(states, (list, tuple)) else [states]
        if len(values) != 2:
            raise ValueError(f'Layer "{self.name}" expects 2 states [h, c]; received {len(values)} value(s).')
        tensors = [torch.as_tensor(np.asarray(v) if not isinstance(v, torch.Tensor) else v) for v in values]
        if self._states is not None:
            for i, (t, held) in enumerate(zip(tensors, self._states)):
                if t.shape != held.shape:
                    raise ValueError(
                        f'State {i} of layer "{self.name}" should have shape {tuple(held.shape)}; '
                        f"received a value of shape {tuple(t.shape)}."
                    )
        self._states = [t.to(self._compute_dtype) for t in tensors]

    reset_state = reset_states

    # ------------------------------------------------------------------ the loop
    def _run(self, x: torch.Tensor, states: list, mask_tm: torch.Tensor | None, training: bool) -> tuple:
        """Runs the cell over time-major `x (time, batch, ...)`: one input convolution for all
        steps, then a loop of state convolutions (Keras' `backend.rnn` masking rules)."""
        cell = self.cell
        steps, batch = x.shape[0], x.shape[1]
        if steps == 0:
            raise ValueError(f'Layer "{self.name}" received a sequence with 0 time steps; it needs at least one.')
        if mask_tm is not None and x.device.type != "meta" and bool(mask_tm.all()):
            mask_tm = None
        if self.go_backwards:
            x = x.flip(0)
            mask_tm = mask_tm.flip(0) if mask_tm is not None else None
        cell.reset_dropout_mask()
        cell.reset_recurrent_dropout_mask()
        flat = cell._to_torch(x.reshape(steps * batch, *x.shape[2:]))
        in_masks = cell.get_dropout_mask_for_cell(flat[:batch], training, count=4)
        if in_masks is None:
            z = cell._project(flat)
        else:
            # one mask per sequence: the same for every step (flat is time-major: t * batch + b)
            z = cell._project_gates(flat, [m.repeat(steps, *([1] * (m.ndim - 1))) for m in in_masks])
        z = z.view(steps, batch, *z.shape[1:])
        h, c = (cell._to_torch(s) for s in states)
        rec_masks = cell.get_recurrent_dropout_mask_for_cell(h, training, count=4)
        recurrent = cell._torch_kernel(cell.recurrent_kernel, z.dtype)
        outputs = []
        previous = None
        for t in range(steps):
            new_h, new_c = cell._step(z[t], h, c, recurrent, rec_masks)
            output = new_h
            if mask_tm is not None:
                m = mask_tm[t].view(-1, *([1] * (new_h.ndim - 1)))
                new_h = torch.where(m, new_h, h)
                new_c = torch.where(m, new_c, c)
                if previous is None or self.zero_output_for_mask:
                    previous = torch.zeros_like(output)
                output = torch.where(m, output, previous)
                previous = output
            h, c = new_h, new_c
            if self.return_sequences:
                outputs.append(output)
        seq = cell._from_torch(torch.stack(outputs).flatten(0, 1)).unflatten(0, (steps, batch)) \
            if self.return_sequences else None
        return seq, cell._from_torch(output), [cell._from_torch(h), cell._from_torch(c)]

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns the constructor arguments, the cell's and the RNN's (Keras 2.15 keys)."""
        config = super().get_config()
        del config["cell"]
        config.pop("time_major", None)
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype", "rank"):
            cell_config.pop(key, None)
        config.update(cell_config)
        config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config: dict) -> _ConvLSTM:
        """Creates the layer from `get_config()`'s output."""
        return cls(**config)


_ARGS_DOC = """
    Args:
        filters: the number of output filters of the convolutions.
        kernel_size: the size of the convolution window ({n} integer(s)).
        strides: the strides of the input convolution (1 by default).
        padding: 'valid' or 'same' (the input convolution's; the recurrent one is 'same').
        data_format: 'channels_last' (default, inputs `(batch, time, {spatial}, channels)`) or
            'channels_first' (`(batch, time, channels, {spatial})`).
        dilation_rate: the dilation rate of the input convolution.
        activation: of the cell input and state (tanh).
        recurrent_activation: of the gates (hard_sigmoid, as Keras 2.15).
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias,
        kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, recurrent_constraint, bias_constraint: as LSTM.
        return_sequences: return every step's output `(batch, time, ...)`, not only the last.
        return_state: also return the final states `[h, c]`.
        go_backwards: process the sequence backwards (and return the reversed sequence).
        stateful: the last states of a batch are the initial states of the next.
        dropout: fraction of the input units dropped (one mask per gate and sequence).
        recurrent_dropout: fraction of the state units dropped.

    Call arguments: `inputs`, `mask` (bool `(batch, time)`), `training`, `initial_state`.
    Weights: `kernel (*kernel_size, channels, 4*filters)`, `recurrent_kernel
    (*kernel_size, filters, 4*filters)`, `bias (4*filters,)`; gates i, f, c, o.
"""


def _init_with_tuple_defaults(rank: int) -> Any:
    """`_ConvLSTM.__init__` with TF's defaults for rank 2 and 3: `strides` and `dilation_rate`
    a tuple of `rank` ones (the same convolution as the scalar 1)."""
    base = _ConvLSTM.__init__
    names = base.__code__.co_varnames[1:base.__code__.co_argcount]
    first_default = len(names) - len(base.__defaults__)
    ones = (1,) * rank
    defaults = tuple(
        ones if name in ("strides", "dilation_rate") else value
        for name, value in zip(names[first_default:], base.__defaults__)
    )
    init = types.FunctionType(base.__code__, base.__globals__, "__init__", defaults, base.__closure__)
    init.__kwdefaults__ = base.__kwdefaults__
    init.__annotations__ = dict(base.__annotations__)
    init.__qualname__ = base.__qualname__
    return init


class ConvLSTM1D(_ConvLSTM):
    __doc__ = "1D Convolutional LSTM (`tf.keras.layers.ConvLSTM1D`): an LSTM whose products are 1D convolutions.\n" + \
        _ARGS_DOC.format(n=1, spatial="rows")
    _rank = 1


class ConvLSTM2D(_ConvLSTM):
    __doc__ = "2D Convolutional LSTM (`tf.keras.layers.ConvLSTM2D`): an LSTM whose products are 2D convolutions.\n" + \
        _ARGS_DOC.format(n=2, spatial="rows, cols")
    _rank = 2
    __init__ = _init_with_tuple_defaults(2)


class ConvLSTM3D(_ConvLSTM):
    __doc__ = "3D Convolutional LSTM (`tf.keras.layers.ConvLSTM3D`): an LSTM whose products are 3D convolutions.\n" + \
        _ARGS_DOC.format(n=3, spatial="dim1, dim2, dim3")
    _rank = 3
    __init__ = _init_with_tuple_defaults(3)
