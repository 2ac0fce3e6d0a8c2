"""TF 1.x's RNN cells (`tf.compat.v1.nn.rnn_cell`) on torch, with TF1's variable names.

A cell is a plain Python object (TF1's cells were graph-building layers): its
weights come from TF1's variable store (`_variable_scope.get_variable`), so a
cell constructed on every `model_fn` call finds the variables the first call
made, they are trained and checkpointed under TF1's names
(`rnn/basic_lstm_cell/kernel`), and TF1 checkpoints load by name.

Scopes follow TF1's layers: the first call captures the enclosing variable
scope and opens a uniquely named sub-scope (the `name=` or the class name in
snake case: `basic_lstm_cell`, `basic_lstm_cell_1`, ...); later calls
re-enter that scope with reuse. `cell(inputs, state, scope=s)` puts the
weights directly in `s`, as TF1 did.
"""

from __future__ import annotations

import numbers
import re
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import placed
from torchestimator.compat.v1 import _variable_scope as _vs
from torchestimator.keras import activations as _activations
from torchestimator.keras.layers.rnn._cell_wrapper_impl import (  # noqa: F401 - re-exported
    # shared with Keras' RNN cell wrappers (one implementation, in Keras)
    LSTMStateTuple,
    _default_dropout_state_filter_visitor,
    _filter_mask,
    _is_nested,
    flatten,
    map_structure,
    pack_as,
)


def _as_placed_tensors(value: Any) -> Any:
    """A cell's inputs or state as TF1 takes them: numpy arrays and numbers become tensors, and
    those and host tensors go where TF runs the cell's ops (`placed`: the GPU when there is one,
    where the weights are). A structure of tensors already there is returned as it is."""
    if isinstance(value, torch.Tensor):
        return placed(value)
    if value is None:
        return None
    return map_structure(lambda t: placed(t if isinstance(t, torch.Tensor) else torch.as_tensor(t)), value)


__all__ = [
    "RNNCell",
    "LayerRNNCell",
    "BasicRNNCell",
    "BasicLSTMCell",
    "LSTMCell",
    "GRUCell",
    "LSTMStateTuple",
    "MultiRNNCell",
]

_BIAS = "bias"
_WEIGHTS = "kernel"


def _snake(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def _zeros(size: Any, batch_size: int, dtype: torch.dtype, device: Any = None) -> Any:
    if _is_nested(size):
        return pack_as(size, [_zeros(s, batch_size, dtype, device) for s in flatten(size)])
    dims = [int(size)] if isinstance(size, numbers.Integral) else [int(d) for d in size]
    return torch.zeros([int(batch_size), *dims], dtype=dtype, device=device)


def _default_device() -> Any:
    return _vs._default_device()


def assert_like_rnncell(cell_name: str, cell: Any) -> None:
    """Raises TypeError (TF's message) when `cell` lacks an RNN cell's attributes."""
    conditions = [
        hasattr(cell, "output_size"),
        hasattr(cell, "state_size"),
        hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"),
        callable(cell),
    ]
    errors = [
        "'output_size' property is missing",
        "'state_size' property is missing",
        "either 'zero_state' or 'get_initial_state' method is required",
        "is not callable",
    ]
    if not all(conditions):
        errors = [error for error, cond in zip(errors, conditions) if not cond]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(errors)}.")


# ------------------------------------------------------------------------------ base cell
class RNNCell:
    """Abstract TF1 RNN cell: `cell(inputs, state) -> (output, new_state)`, with `state_size`,
    `output_size` and `zero_state(batch_size, dtype)`. Subclasses implement `build(inputs_shape)`
    (creating weights with `add_weight`) and `call(inputs, state)`."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        self._reuse = kwargs.pop("_reuse", None)
        self.trainable = trainable
        self._name = name
        self._base_name = name or _snake(type(self).__name__)
        self.dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
        self._outer_scope: _vs.VariableScope | None = None
        self._scope: _vs.VariableScope | None = None
        self.built = False
        self._weights: list[torch.Tensor] = []

    @property
    def name(self) -> str:
        """The cell's scope name once called, else its base name."""
        return self._scope.name if self._scope is not None else self._base_name

    @property
    def state_size(self) -> Any:
        """Size(s) of the state: an int, or a nest (`LSTMStateTuple`, tuple) of ints."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        """Size of the outputs produced by this cell."""
        raise NotImplementedError("Abstract method")

    @property
    def weights(self) -> list[torch.Tensor]:
        """The variables this cell (and the cells it wraps) created or reused."""
        return list(self._weights)

    trainable_weights = weights
    variables = weights
    trainable_variables = weights

    def build(self, inputs_shape: Any) -> None:
        """Creates the cell's variables (none here)."""

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        """One step: returns `(output, new_state)`."""
        raise NotImplementedError("Abstract method")

    def add_weight(self, name: str, shape: Any, initializer: Any = None, dtype: Any = None,
                   **_: Any) -> torch.Tensor:
        """Gets or creates the variable `name` in the cell's scope (TF1's `get_variable`)."""
        variable = _vs.get_variable(name, shape=shape, dtype=dtype or self.dtype,
                                    initializer=initializer, trainable=self.trainable)
        self._weights.append(variable)
        return variable

    add_variable = add_weight

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple[Any, Any]:
        """Runs the cell on `inputs` (`[batch, input_size]`) from `state`; returns
        `(output, new_state)`. Builds the weights on the first call."""
        if scope is not None:
            with _vs.variable_scope(scope) as captured:
                return self._layer_call(inputs, state, captured)
        if self._outer_scope is None:
            self._outer_scope = _vs.get_variable_scope()
        if _vs.get_variable_scope().name == self._outer_scope.name:
            return self._layer_call(inputs, state, None)
        with _vs.variable_scope(self._outer_scope):
            return self._layer_call(inputs, state, None)

    def _layer_call(self, inputs: Any, state: Any, scope: Any) -> tuple[Any, Any]:
        if self._scope is None:
            if scope is not None:
                self._scope = scope
            elif self._reuse:
                with _vs.variable_scope(self._base_name) as captured:
                    self._scope = captured
            else:
                with _vs.variable_scope(None, default_name=self._base_name) as captured:
                    self._scope = captured
        inputs, state = _as_placed_tensors(inputs), _as_placed_tensors(state)
        reuse = True if (self.built or self._reuse) else None
        with _vs.variable_scope(self._scope, reuse=reuse):
            if not self.built:
                self._check_input(inputs)
                if self.dtype is None:
                    self.dtype = flatten(inputs)[0].dtype
                self._weights = []
                self.build(tuple(flatten(inputs)[0].shape))
                self.built = True
            return self.call(inputs, state)

    def _check_input(self, inputs: Any) -> None:
        """Checks TF1's InputSpec(ndim=2) of the layer cells."""

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None, dtype: Any = None) -> Any:
        """The zero state for `batch_size` and `dtype`, or for the batch and dtype of `inputs`."""
        if inputs is not None:
            inputs = torch.as_tensor(inputs)
            if batch_size is not None and inputs.shape[0] != int(batch_size):
                raise ValueError(
                    "batch size from input tensor is different from the input param. Input tensor "
                    f"batch: {inputs.shape[0]}, batch_size: {batch_size}"
                )
            if dtype is not None and inputs.dtype != _dtypes.as_dtype(dtype):
                raise ValueError(
                    "dtype from input tensor is different from the input param. Input tensor "
                    f"dtype: {inputs.dtype}, dtype: {dtype}"
                )
            batch_size, dtype = inputs.shape[0], inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(
                "batch_size and dtype cannot be None while constructing initial state: "
                f"batch_size={batch_size}, dtype={dtype}"
            )
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zero-filled state: `[batch_size, state_size]` tensors, nested like `state_size`."""
        return _zeros(self.state_size, int(batch_size), _dtypes.as_dtype(dtype), _default_device())


class LayerRNNCell(RNNCell):
    """An RNN cell that acts as a TF1 layer: weights created in `build`, checked 2-D inputs."""

    def _check_input(self, inputs: Any) -> None:
        for x in flatten(inputs):
            if not (x.is_floating_point() or x.is_complex()):
                raise ValueError(
                    "RNN cell only supports floating point inputs, but received dtype: "
                    f"{_dtypes.dtype_name(x.dtype)} (layer {self._base_name!r}); cast the inputs "
                    "with tf.cast(inputs, tf.float32)."
                )
            if x.dim() != 2:
                raise ValueError(
                    f'Input 0 of layer "{self._base_name}" is incompatible with the layer: '
                    f"expected ndim=2, found ndim={x.dim()}. Full shape received: {tuple(x.shape)}"
                )


def _activation(activation: Any) -> Any:
    return _activations.get(activation) if activation else torch.tanh


def _input_depth(cell: RNNCell, inputs_shape: tuple) -> int:
    if not inputs_shape or inputs_shape[-1] is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: {inputs_shape}")
    return int(inputs_shape[-1])


def _matmul_concat(a: torch.Tensor, b: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    return torch.cat([a, b], 1) @ kernel


class BasicRNNCell(LayerRNNCell):
    """The most basic RNN cell: `output = new_state = activation(W [inputs, state] + b)`;
    variables `kernel` `[input_depth + num_units, num_units]` and `bias` `[num_units]`."""

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = int(num_units)
        self._activation = _activation(activation)

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(_BIAS, shape=[self._num_units],
                                     initializer=_vs.zeros_initializer(dtype=self.dtype))

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        output = self._activation(_matmul_concat(inputs, state, self._kernel) + self._bias)
        return output, output


class GRUCell(LayerRNNCell):
    """Gated Recurrent Unit cell (Cho et al. 2014). Variables `gates/kernel`
    `[input_depth + num_units, 2 * num_units]` (reset r, update u), `gates/bias` (default
    initializer: ones), `candidate/kernel` `[input_depth + num_units, num_units]`,
    `candidate/bias` (zeros); `new_h = u * h + (1 - u) * activation(W_c [x, r * h] + b_c)`."""

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = int(num_units)
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        bias_init = self._bias_initializer
        self._gate_kernel = self.add_weight(f"gates/{_WEIGHTS}", shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            f"gates/{_BIAS}", shape=[2 * n],
            initializer=bias_init if bias_init is not None else _vs.constant_initializer(1.0, dtype=self.dtype))
        self._candidate_kernel = self.add_weight(f"candidate/{_WEIGHTS}", shape=[depth + n, n],
                                                 initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(
            f"candidate/{_BIAS}", shape=[n],
            initializer=bias_init if bias_init is not None else _vs.zeros_initializer(dtype=self.dtype))

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        value = torch.sigmoid(_matmul_concat(inputs, state, self._gate_kernel) + self._gate_bias)
        r, u = torch.split(value, self._num_units, dim=1)
        candidate = _matmul_concat(inputs, r * state, self._candidate_kernel) + self._candidate_bias
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(LayerRNNCell):
    """Basic LSTM cell (no peepholes, no clipping, no projection). Variables `kernel`
    `[input_depth + num_units, 4 * num_units]` (gates i, j, f, o) and `bias` (zeros);
    `forget_bias` is added to the forget gate. State: `LSTMStateTuple(c, h)`, or `[c, h]`
    concatenated when `state_is_tuple=False`."""

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: Any = None, reuse: Any = None, name: str | None = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = int(num_units)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self) -> Any:
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=_vs.zeros_initializer(dtype=self.dtype))

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = torch.split(state, self._num_units, dim=1)
        gates = _matmul_concat(inputs, h, self._kernel) + self._bias
        i, j, f, o = torch.split(gates, self._num_units, dim=1)
        new_c = c * torch.sigmoid(f + self._forget_bias) + torch.sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * torch.sigmoid(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else torch.cat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(LayerRNNCell):
    """LSTM cell with optional peepholes (`w_f_diag`, `w_i_diag`, `w_o_diag`), cell clipping
    (`cell_clip`) and a projection layer (`projection/kernel` `[num_units, num_proj]`, clipped by
    `proj_clip`). Variables `kernel` `[input_depth + (num_proj or num_units), 4 * num_units]`
    (gates i, j, f, o; `forget_bias` added to f) and `bias` (zeros). State
    `LSTMStateTuple(c, m)` or `[c, m]` concatenated; output `m`."""

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip: float | None = None,
                 initializer: Any = None, num_proj: int | None = None, proj_clip: float | None = None,
                 num_unit_shards: Any = None, num_proj_shards: Any = None, forget_bias: float = 1.0,
                 state_is_tuple: bool = True, activation: Any = None, reuse: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError(
                "LSTMCell: num_unit_shards/num_proj_shards (partitioned variables) are not supported; "
                "leave them None."
            )
        self._num_units = int(num_units)
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = None if num_proj is None else int(num_proj)
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        n, p = self._num_units, self._num_proj
        if p:
            self._state_size = LSTMStateTuple(n, p) if state_is_tuple else n + p
            self._output_size = p
        else:
            self._state_size = LSTMStateTuple(n, n) if state_is_tuple else 2 * n
            self._output_size = n

    @property
    def state_size(self) -> Any:
        return self._state_size

    @property
    def output_size(self) -> int:
        return self._output_size

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + h_depth, 4 * n], initializer=self._initializer)
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=_vs.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight(f"projection/{_WEIGHTS}", shape=[n, self._num_proj],
                                                initializer=self._initializer)

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        n = self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev, m_prev = state[:, :n], state[:, n:]
        lstm = _matmul_concat(inputs, m_prev, self._kernel) + self._bias
        i, j, f, o = torch.split(lstm, n, dim=1)
        act = self._activation
        if self._use_peepholes:
            c = (torch.sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + torch.sigmoid(i + self._w_i_diag * c_prev) * act(j))
        else:
            c = torch.sigmoid(f + self._forget_bias) * c_prev + torch.sigmoid(i) * act(j)
        if self._cell_clip is not None:
            c = torch.clamp(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = torch.sigmoid(o + self._w_o_diag * c) * act(c)
        else:
            m = torch.sigmoid(o) * act(c)
        if self._num_proj is not None:
            m = m @ self._proj_kernel
            if self._proj_clip is not None:
                m = torch.clamp(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else torch.cat([c, m], 1)
        return m, new_state


# ------------------------------------------------------------------------------ MultiRNNCell
class MultiRNNCell(RNNCell):
    """RNN cell composed sequentially of `cells`; cell i's variables live in scope `cell_i`
    (`rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel`). The state is the tuple of the cells'
    states, or (`state_is_tuple=False`) their concatenation."""

    def __init__(self, cells: Any, state_is_tuple: bool = True) -> None:
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not _is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(_is_nested(c.state_size) for c in self._cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set. "
                f"State sizes are: {[c.state_size for c in self._cells]}"
            )

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self) -> Any:
        return self._cells[-1].output_size

    @property
    def weights(self) -> list[torch.Tensor]:
        return [w for cell in self._cells for w in cell.weights]

    trainable_weights = weights
    variables = weights
    trainable_variables = weights

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        if self._state_is_tuple:
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
        return super().zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> tuple[Any, Any]:
        position = 0
        current = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with _vs.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not _is_nested(state):
                        raise ValueError(
                            f"Expected state to be a tuple of length {len(self.state_size)}, but "
                            f"received: {state}"
                        )
                    cell_state = state[i]
                else:
                    cell_state = state[:, position:position + cell.state_size]
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        return current, (tuple(new_states) if self._state_is_tuple else torch.cat(new_states, 1))


# The wrappers (DropoutWrapper, ResidualWrapper, DeviceWrapper) are in _rnn_cell_wrappers.py.
