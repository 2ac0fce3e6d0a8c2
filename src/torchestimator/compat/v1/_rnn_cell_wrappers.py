"""TF 1.x's RNN cell wrappers (`tf.compat.v1.nn.rnn_cell.DropoutWrapper`, `ResidualWrapper`,
`DeviceWrapper`): cells around a cell of `_rnn_cell.py`, adding no variable scope of their own,
so the wrapped cell's variables keep TF1's names.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.device_scope import placement_scope
from torchestimator.compat.v1._rnn_cell import (
    RNNCell,
    _as_placed_tensors,
    _default_dropout_state_filter_visitor,
    _filter_mask,
    assert_like_rnncell,
    flatten,
    map_structure,
    pack_as,
)
from torchestimator.keras.layers.rnn._cell_wrapper_impl import _parse_device

__all__ = ["DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]


class _Wrapper(RNNCell):
    """A cell around `cell`: calls `cell.__call__` itself, so the wrapped cell's variables keep
    their names (the wrapper adds no scope)."""

    def __init__(self, cell: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        assert_like_rnncell("cell", cell)
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

    @property
    def weights(self) -> list[torch.Tensor]:
        return list(getattr(self.cell, "weights", []))

    trainable_weights = weights
    variables = weights
    trainable_variables = weights

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple[Any, Any]:
        """Runs the wrapped cell (with `scope`) and applies the wrapper."""
        return self._call_wrapped_cell(inputs, state, scope)

    def _call_wrapped_cell(self, inputs: Any, state: Any, scope: Any) -> tuple[Any, Any]:
        raise NotImplementedError


class DropoutWrapper(_Wrapper):
    """Dropout on the inputs, outputs and states of `cell`, keeping each with probability
    `input_keep_prob`, `output_keep_prob`, `state_keep_prob` (kept values scaled by
    `1 / keep_prob`). As in TF1 it always drops, whatever the mode (use keep_prob=1.0 in
    EVAL/PREDICT). The LSTM memory state `c` is never dropped (`dropout_state_filter_visitor`
    chooses). With `variational_recurrent=True` one mask per wrapper object is drawn on its
    first call and reused at every time step (TF1 drew one per graph run; here a wrapper built
    inside `model_fn` is built once per step)."""

    def __init__(self, cell: Any, input_keep_prob: Any = 1.0, output_keep_prob: Any = 1.0,
                 state_keep_prob: Any = 1.0, variational_recurrent: bool = False,
                 input_size: Any = None, dtype: Any = None, seed: int | None = None,
                 dropout_state_filter_visitor: Any = None, **kwargs: Any) -> None:
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError(
                f"dropout_state_filter_visitor must be callable. Received: {dropout_state_filter_visitor}"
            )
        self._dropout_state_filter = dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        for prob, attr in ((input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                           (output_keep_prob, "output_keep_prob")):
            if isinstance(prob, torch.Tensor) and prob.requires_grad:
                setattr(self, f"_{attr}", prob)
                continue
            value = float(prob)
            if value < 0 or value > 1:
                raise ValueError(f"Parameter {attr} must be between 0 and 1. Received {value}")
            setattr(self, f"_{attr}", value)
        self._variational_recurrent = variational_recurrent
        self._seed = seed
        self._generator: torch.Generator | None = None
        self._noise: dict[str, list[torch.Tensor]] = {}

    def _uniform(self, like: torch.Tensor) -> torch.Tensor:
        if self._seed is not None and self._generator is None:
            self._generator = torch.Generator(device=like.device)
            self._generator.manual_seed(int(self._seed))
        return torch.rand(like.shape, dtype=like.dtype, device=like.device, generator=self._generator)

    def _dropout(self, values: Any, kind: str, keep_prob: Any, flags: list[bool] | None = None) -> Any:
        leaves = flatten(values)
        flags = flags if flags is not None else [True] * len(leaves)
        noise = self._noise.get(kind) if self._variational_recurrent else None
        if noise is None:
            noise = [self._uniform(v) for v in leaves]
            if self._variational_recurrent:
                self._noise[kind] = noise
        out = [torch.floor(keep_prob + n) * (v / keep_prob) if keep else v
               for v, n, keep in zip(leaves, noise, flags)]
        return pack_as(values, out)

    def _call_wrapped_cell(self, inputs: Any, state: Any, scope: Any) -> tuple[Any, Any]:
        def should_drop(p: Any) -> bool:
            return not isinstance(p, float) or p < 1

        if should_drop(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = self.cell(inputs, state, scope=scope)
        if should_drop(self._state_keep_prob):
            flags = _filter_mask(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._state_keep_prob, flags)
        if should_drop(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


class ResidualWrapper(_Wrapper):
    """Adds the cell's inputs to its outputs (`residual_fn(inputs, outputs)`, default
    element-wise `inputs + outputs` over matching structures)."""

    def __init__(self, cell: Any, residual_fn: Any = None, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs: Any, state: Any, scope: Any) -> tuple[Any, Any]:
        inputs = _as_placed_tensors(inputs)  # added to the outputs: where the cell runs
        outputs, new_state = self.cell(inputs, state, scope=scope)

        def default_residual_fn(inp: Any, out: Any) -> Any:
            def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
                if tuple(a.shape) != tuple(b.shape):
                    raise ValueError(f"Shapes {tuple(a.shape)} and {tuple(b.shape)} are incompatible")
                return a + b

            return map_structure(add, inp, out)

        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_Wrapper):
    """Runs `cell` with its inputs and state moved to `device` (a torch device or TF device
    string such as '/gpu:0' or '/cpu:0')."""

    def __init__(self, cell: Any, device: Any, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._device = device

    def _torch_device(self) -> torch.device:
        return _parse_device(self._device)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        return map_structure(lambda t: t.to(self._torch_device()), self.cell.zero_state(batch_size, dtype))

    def _call_wrapped_cell(self, inputs: Any, state: Any, scope: Any) -> tuple[Any, Any]:
        device = self._torch_device()
        move = lambda t: t.to(device) if isinstance(t, torch.Tensor) else t  # noqa: E731
        with placement_scope(device):  # TF's `tf.device` around the cell: its weights and ops there
            return self.cell(map_structure(move, inputs), map_structure(move, state), scope=scope)
