"""TF 1.x's RNN drivers: `tf.compat.v1.nn.dynamic_rnn`, `static_rnn`,
`bidirectional_dynamic_rnn`, `static_bidirectional_rnn`.

TF1 built a `while_loop` (or an unrolled graph); here the cell runs eagerly
once per time step. The variable scopes are TF1's (`rnn`, `bidirectional_rnn/fw`,
`bidirectional_rnn/bw`), so the cells' variables get TF1's names. With
`sequence_length`, past each sequence's length the outputs are zeros and the
state is copied through, so the final state is the state at each sequence's
last valid step (TF1's semantics).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import placed
from torchestimator.compat.v1 import _variable_scope as _vs
from torchestimator.compat.v1._rnn_cell import assert_like_rnncell, flatten, map_structure, pack_as

__all__ = [
    "dynamic_rnn",
    "static_rnn",
    "bidirectional_dynamic_rnn",
    "static_bidirectional_rnn",
    "raw_rnn",
    "static_state_saving_rnn",
]


def _tensor(x: Any) -> torch.Tensor:
    """`x` as a tensor on the device TF would run the RNN's ops on (`placed`: numpy arrays and
    host tensors go to the GPU when there is one, where the cell's weights are)."""
    return placed(x if isinstance(x, torch.Tensor) else torch.as_tensor(x))


def _initial_state(cell: Any, initial_state: Any, dtype: Any, batch_size: int,
                   device: torch.device) -> Any:
    """`initial_state`, else the cell's zero state for `dtype` on the inputs' device."""
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    dtype = _dtypes.as_dtype(dtype)
    if getattr(cell, "get_initial_state", None) is not None:
        state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    else:
        state = cell.zero_state(batch_size, dtype)
    return map_structure(lambda t: t.to(device) if isinstance(t, torch.Tensor) else t, state)


def _sequence_length(sequence_length: Any, batch_size: int, device: torch.device, label: str) -> Any:
    if sequence_length is None:
        return None
    lengths = _tensor(sequence_length).to(device=device, dtype=torch.int32)
    if lengths.dim() != 1:
        raise ValueError(
            f"Argument {label} must be a vector of length batch_size. Received "
            f"sequence_length={sequence_length!r} of shape: {tuple(lengths.shape)}"
        )
    if lengths.shape[0] != batch_size:
        raise ValueError(
            f"Argument {label} must be a vector of length batch_size ({batch_size}); received "
            f"a vector of length {lengths.shape[0]}."
        )
    return lengths


def _step_mask(output: Any, new_state: Any, state: Any, valid: torch.Tensor) -> tuple[Any, Any]:
    """TF1's `_rnn_step`: zero outputs and keep the old state where `valid` is False."""

    def keep(new: torch.Tensor, old: torch.Tensor | None = None) -> torch.Tensor:
        mask = valid.reshape(valid.shape + (1,) * (new.dim() - 1))
        return torch.where(mask, new, torch.zeros_like(new) if old is None else old)

    return map_structure(keep, output), map_structure(keep, new_state, state)


def _run(cell: Any, steps: list, state: Any, lengths: Any) -> tuple[list, Any]:
    """Runs `cell` over the time steps `steps` (each an input structure) from `state`."""
    outputs = []
    for time, step_input in enumerate(steps):
        output, new_state = cell(step_input, state)
        if lengths is not None:
            output, new_state = _step_mask(output, new_state, state, time < lengths)
        state = new_state
        outputs.append(output)
    return outputs, state


def dynamic_rnn(cell: Any, inputs: Any, sequence_length: Any = None, initial_state: Any = None,
                dtype: Any = None, parallel_iterations: int | None = None, swap_memory: bool = False,
                time_major: bool = False, scope: Any = None) -> tuple[Any, Any]:
    """Creates a recurrent neural network specified by RNNCell `cell` (TF1).

    `inputs` is `[batch_size, max_time, ...]` (or `[max_time, batch_size, ...]`
    with `time_major=True`), or a nest of such tensors. `sequence_length` is
    an int vector `[batch_size]`: past each sequence's length outputs are
    zero and the state is copied through. Without `initial_state`, `dtype`
    is required and the cell's zero state is used. Variables are created in
    variable scope `scope` (default "rnn").

    Returns:
        `(outputs, state)`: outputs shaped like the inputs' batch/time layout
        with the cell's output depth (a nest like `cell.output_size`), and the
        final state (shaped like `cell.state_size`).
    """
    assert_like_rnncell("cell", cell)
    with _vs.variable_scope(scope or "rnn"):
        flat = [_tensor(x) for x in flatten(inputs)]
        for x in flat:
            if x.dim() < 2:
                raise ValueError(
                    f"Input tensor should have rank >= 2. Received input=<tensor of shape "
                    f"{tuple(x.shape)}> of rank {x.dim()}"
                )
        if not time_major:
            flat = [x.transpose(0, 1) for x in flat]
        time_steps, batch_size = int(flat[0].shape[0]), int(flat[0].shape[1])
        for x in flat:
            if x.shape[0] != time_steps:
                raise ValueError(
                    "Time steps is not the same for all the elements in the input in a batch. "
                    f"Received time steps={x.shape[0]} for input of shape {tuple(x.shape)} "
                    f"(expected {time_steps})."
                )
            if x.shape[1] != batch_size:
                raise ValueError(
                    "Batch_size is not the same for all the elements in the input. Received batch "
                    f"size={x.shape[1]} for input of shape {tuple(x.shape)} (expected {batch_size})."
                )
        lengths = _sequence_length(sequence_length, batch_size, flat[0].device, "sequence_length")
        state = _initial_state(cell, initial_state, dtype, batch_size, flat[0].device)
        steps = [pack_as(inputs, [x[t] for x in flat]) for t in range(time_steps)]
        outputs, state = _run(cell, steps, state, lengths)
        if not outputs:
            raise ValueError("dynamic_rnn: inputs have 0 time steps; at least one step is required.")
        stacked = map_structure(lambda *xs: torch.stack(xs, 0), *outputs)
        if not time_major:
            stacked = map_structure(lambda x: x.transpose(0, 1), stacked)
        return stacked, state


def static_rnn(cell: Any, inputs: Any, initial_state: Any = None, dtype: Any = None,
               sequence_length: Any = None, scope: Any = None) -> tuple[list, Any]:
    """Creates a recurrent neural network specified by RNNCell `cell`, unrolled over the list
    `inputs` (length T, each `[batch_size, input_size]` or a nest of them) (TF1).

    Returns:
        `(outputs, state)`: the list of T outputs and the final state. With
        `sequence_length` the outputs past each length are zeros and the
        state is copied through.
    """
    assert_like_rnncell("cell", cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with _vs.variable_scope(scope or "rnn"):
        first = _tensor(flatten(inputs[0])[0])
        if first.dim() < 1:
            raise ValueError(f"Input must have rank at least 1; received shape {tuple(first.shape)}.")
        batch_size = int(first.shape[0])
        state = _initial_state(cell, initial_state, dtype, batch_size, first.device)
        lengths = _sequence_length(sequence_length, batch_size, first.device, "`sequence_length`")
        steps = [map_structure(_tensor, step) for step in inputs]
        outputs, state = _run(cell, steps, state, lengths)
        return outputs, state


def _reverse_time(x: torch.Tensor, lengths: Any, time_axis: int) -> torch.Tensor:
    """TF's `reverse_sequence`: reverses each sequence's first `lengths[b]` steps along
    `time_axis` (all steps when `lengths` is None); later steps stay."""
    if lengths is None:
        return torch.flip(x, [time_axis])
    steps = x.shape[time_axis]
    t = torch.arange(steps, device=x.device).unsqueeze(1)  # [T, 1]
    n = lengths.to(x.device).long().unsqueeze(0)  # [1, B]
    index = torch.where(t < n, n - 1 - t, t)  # [T, B]
    if time_axis == 1:
        index = index.transpose(0, 1)  # [B, T]
    index = index.reshape(index.shape + (1,) * (x.dim() - 2)).expand_as(x)
    return torch.gather(x, time_axis, index)


def bidirectional_dynamic_rnn(cell_fw: Any, cell_bw: Any, inputs: Any, sequence_length: Any = None,
                              initial_state_fw: Any = None, initial_state_bw: Any = None,
                              dtype: Any = None, parallel_iterations: int | None = None,
                              swap_memory: bool = False, time_major: bool = False,
                              scope: Any = None) -> tuple[tuple, tuple]:
    """Creates a dynamic bidirectional RNN (TF1): `cell_fw` reads the inputs forward in scope
    `<scope>/fw`, `cell_bw` reads them reversed (each sequence within its length) in
    `<scope>/bw` (default scope "bidirectional_rnn").

    Returns:
        `((output_fw, output_bw), (output_state_fw, output_state_bw))`, the
        backward outputs reversed back to the input's time order.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    with _vs.variable_scope(scope or "bidirectional_rnn"):
        with _vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length=sequence_length,
                                              initial_state=initial_state_fw, dtype=dtype,
                                              time_major=time_major, scope=fw_scope)
        time_axis = 0 if time_major else 1
        lengths = None if sequence_length is None else _tensor(sequence_length)
        with _vs.variable_scope("bw") as bw_scope:
            reversed_inputs = map_structure(lambda x: _reverse_time(_tensor(x), lengths, time_axis), inputs)
            tmp, state_bw = dynamic_rnn(cell_bw, reversed_inputs, sequence_length=sequence_length,
                                        initial_state=initial_state_bw, dtype=dtype,
                                        time_major=time_major, scope=bw_scope)
    output_bw = map_structure(lambda x: _reverse_time(x, lengths, time_axis), tmp)
    return (output_fw, output_bw), (state_fw, state_bw)


def _reverse_seq(sequence: list, lengths: Any) -> list:
    if lengths is None:
        return list(reversed(sequence))
    flats = [flatten(step) for step in sequence]
    columns = []
    for leaf in range(len(flats[0])):
        joined = torch.stack([_tensor(f[leaf]) for f in flats], 0)
        columns.append(_reverse_time(joined, _tensor(lengths), 0))
    return [pack_as(sequence[t], [col[t] for col in columns]) for t in range(len(sequence))]


def static_bidirectional_rnn(cell_fw: Any, cell_bw: Any, inputs: Any, initial_state_fw: Any = None,
                             initial_state_bw: Any = None, dtype: Any = None,
                             sequence_length: Any = None, scope: Any = None) -> tuple[list, Any, Any]:
    """Creates a bidirectional RNN unrolled over the list `inputs` (TF1), scopes
    `<scope>/fw` and `<scope>/bw` (default "bidirectional_rnn").

    Returns:
        `(outputs, output_state_fw, output_state_bw)`: outputs is the list of
        the forward and backward outputs concatenated on the last axis.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with _vs.variable_scope(scope or "bidirectional_rnn"):
        with _vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                             scope=fw_scope)
        with _vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(list(inputs), sequence_length)
            tmp, state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length,
                                       scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    outputs = [map_structure(lambda a, b: torch.cat([a, b], 1), fw, bw) for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw


def raw_rnn(cell: Any, loop_fn: Any, parallel_iterations: int | None = None, swap_memory: bool = False,
            scope: Any = None) -> Any:
    """TF1's `raw_rnn` is not provided: it returns `TensorArray`s, which this project does not
    have. Raises NotImplementedError saying what to use instead."""
    raise NotImplementedError(
        "tf.compat.v1.nn.raw_rnn is not supported (it needs tf.TensorArray, which torchestimator "
        "does not provide); write the loop in Python calling cell(inputs, state) per step, or use "
        "tf.compat.v1.nn.dynamic_rnn."
    )


def static_state_saving_rnn(cell: Any, inputs: Any, state_saver: Any, state_name: Any,
                            sequence_length: Any = None, scope: Any = None) -> Any:
    """TF1's `static_state_saving_rnn` is not provided: its state savers are graph queues
    (`SequenceQueueingStateSaver`). Raises NotImplementedError saying what to use instead."""
    raise NotImplementedError(
        "tf.compat.v1.nn.static_state_saving_rnn is not supported (its state saver is a TF1 graph "
        "queue); keep the state yourself and pass it as initial_state to tf.compat.v1.nn.static_rnn."
    )
