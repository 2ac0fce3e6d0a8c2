"""Keras 2.15's sequence functions of `tf.keras.backend` on torch: `rnn` (iterating a step
function over time) and the CTC functions (`ctc_batch_cost`, `ctc_decode`,
`ctc_label_dense_to_sparse`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

import torchestimator as _tf
from torchestimator._ops import nest
from torchestimator._ops.ctc_ops import beam_search, collapse
from torchestimator.keras.backend._core import _t
from torchestimator.keras.backend._state import epsilon


def _nest():
    return nest


def rnn(step_function: Callable, inputs: Any, initial_states: Any, go_backwards: bool = False,
        mask: Any = None, constants: Any = None, unroll: bool = False, input_length: Any = None,
        time_major: bool = False, zero_output_for_mask: bool = False,
        return_all_outputs: bool = True) -> tuple:
    """Iterates over the time dimension of a tensor.

    `step_function(inputs_t, states + constants)` returns `(output_t, new_states)`. `inputs`
    is (samples, time, ...) (time first with `time_major`), possibly nested; `mask` is
    (samples, time) (bool). Where the mask is False the previous output (zeros with
    `zero_output_for_mask`) and the previous states carry on. Returns `(last_output, outputs,
    new_states)`: outputs (samples, time, ...) (time 1 without `return_all_outputs`),
    new_states a tuple (the step function's list when `unroll` without a mask).
    """
    nest = _nest()
    flat_inputs = [_t(x) for x in nest.flatten(inputs)]
    for x in flat_inputs:
        if x.dim() < 3:
            raise ValueError(
                f"rnn(): `inputs` must have rank at least 3 (samples, time, ...); received shape "
                f"{tuple(x.shape)}"
            )
    if not time_major:
        flat_inputs = [x.transpose(0, 1) for x in flat_inputs]
    time_steps = flat_inputs[0].shape[0]
    if mask is not None:
        mask = _t(mask)
        if mask.dtype != torch.bool:
            mask = mask.to(torch.bool)
        if mask.dim() == 2:
            mask = mask.unsqueeze(-1)
        if not time_major:
            mask = mask.transpose(0, 1)
        if go_backwards:
            mask = torch.flip(mask, [0])
    elif isinstance(input_length, torch.Tensor):
        steps = torch.arange(time_steps, device=input_length.device)
        if go_backwards:
            rev = input_length.max() - 1 - input_length
            mask = rev.unsqueeze(0) < steps.unsqueeze(1)
        else:
            mask = input_length.unsqueeze(0) > steps.unsqueeze(1)
    if go_backwards:
        flat_inputs = [torch.flip(x, [0]) for x in flat_inputs]
    constants = list(constants) if constants is not None else []

    def expand(mask_t: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        while mask_t.dim() < t.dim():
            mask_t = mask_t.unsqueeze(-1)
        return mask_t

    states = tuple(initial_states)
    outputs: list = []
    prev_output = None
    for time in range(time_steps):
        current = nest.pack_sequence_as(inputs, [x[time] for x in flat_inputs])
        output, new_states = step_function(current, tuple(states) + tuple(constants))
        flat_output = nest.flatten(output)
        flat_new_states = nest.flatten(new_states)
        if mask is not None:
            mask_t = mask[time]
            if prev_output is None:
                prev_output = [torch.zeros_like(o) for o in flat_output]
            fallback = [torch.zeros_like(o) for o in flat_output] if zero_output_for_mask else prev_output
            flat_output = [torch.where(expand(mask_t, o), o, f) for o, f in zip(flat_output, fallback)]
            flat_old = nest.flatten(states)
            flat_new_states = [torch.where(expand(mask_t, s), s, p)
                               for s, p in zip(flat_new_states, flat_old)]
            prev_output = flat_output
            output = nest.pack_sequence_as(output, flat_output)
        raw_states = new_states
        states = tuple(nest.pack_sequence_as(new_states, flat_new_states)) \
            if isinstance(new_states, (list, tuple)) else (new_states,)
        if return_all_outputs or not outputs:
            outputs.append(flat_output)
        else:
            outputs[0] = flat_output
    if not outputs:
        raise ValueError("rnn(): `inputs` has no time steps (time dimension of size 0).")
    stacked = [torch.stack([o[i] for o in outputs]) for i in range(len(outputs[0]))]
    last = [s[-1] for s in stacked]
    if not time_major:
        stacked = [s.transpose(0, 1) for s in stacked]
    template = output
    # Keras' while loop gives the states as a tuple; its unrolled loop without a mask gives the
    # step function's own list
    final_states = raw_states if unroll and mask is None else tuple(states)
    return (nest.pack_sequence_as(template, last), nest.pack_sequence_as(template, stacked),
            final_states)


def ctc_label_dense_to_sparse(labels: Any, label_lengths: Any) -> Any:
    """Converts CTC labels from dense to sparse: the first `label_lengths[i]` entries of row i
    of `labels` become a `tf.SparseTensor` of the labels' shape."""
    labels = _t(labels)
    label_lengths = _t(label_lengths).reshape(-1).to(torch.int64)
    positions = torch.arange(labels.shape[1], device=labels.device)
    dense_mask = positions.unsqueeze(0) < label_lengths.to(labels.device).unsqueeze(1)
    indices = torch.nonzero(dense_mask).to(torch.int64)
    values = labels[dense_mask]
    return _tf.SparseTensor(indices=indices, values=values,
                            dense_shape=torch.tensor(list(labels.shape), dtype=torch.int64))


def ctc_batch_cost(y_true: Any, y_pred: Any, input_length: Any, label_length: Any) -> torch.Tensor:
    """Runs the CTC loss algorithm on each batch element.

    `y_true` (samples, max_string_length) holds the labels, `y_pred` (samples, time_steps,
    num_categories) the softmax output (the last category is the blank), `input_length` and
    `label_length` (samples, 1) the lengths. Returns a (samples, 1) tensor of CTC losses.
    """
    y_true, y_pred = _t(y_true), _t(y_pred)
    label_length = _t(label_length).reshape(-1).to(torch.int64)
    input_length = _t(input_length).reshape(-1).to(torch.int64)
    if label_length.shape[0] != y_true.shape[0] or input_length.shape[0] != y_pred.shape[0]:
        raise ValueError(
            f"ctc_batch_cost(): `label_length` ({tuple(label_length.shape)}) and `input_length` "
            f"({tuple(input_length.shape)}) must hold one length per sample of `y_true` "
            f"{tuple(y_true.shape)} / `y_pred` {tuple(y_pred.shape)}"
        )
    num_classes = y_pred.shape[-1]
    work = y_pred.to(torch.float64) if y_pred.dtype != torch.float64 else y_pred
    # Keras feeds log(y_pred + eps) to TF's ctc_loss as logits, which normalizes them again
    log_probs = torch.log_softmax(torch.log(work + epsilon()), dim=-1).transpose(0, 1)
    targets = y_true.to(torch.int64)
    if bool((input_length < label_length).any()):
        raise ValueError(
            "ctc_batch_cost(): a sample has `label_length` greater than `input_length` (not "
            "enough time steps for the labels): "
            f"label_length={label_length.tolist()}, input_length={input_length.tolist()}"
        )
    loss = F.ctc_loss(log_probs, targets, input_length.to(log_probs.device),
                      label_length.to(log_probs.device), blank=num_classes - 1, reduction="none",
                      zero_infinity=False)
    return loss.to(y_pred.dtype).unsqueeze(1)


def ctc_decode(y_pred: Any, input_length: Any, greedy: bool = True, beam_width: int = 100,
               top_paths: int = 1) -> tuple:
    """Decodes the output of a softmax, by greedy search (best path) or by constrained
    dictionary-free beam search.

    `y_pred` (samples, time_steps, num_categories) holds the softmax output (the last category
    is the blank), `input_length` (samples,) the sequence lengths. Returns `(decoded,
    log_prob)`: a list of `top_paths` int64 tensors (samples, time_steps) with the decoded
    labels padded by -1, and the (samples, top_paths) log probabilities (greedy: the negative
    sum of the best log-probability at each step).
    """
    y_pred = _t(y_pred)
    num_samples, num_steps, num_classes = y_pred.shape
    blank = num_classes - 1
    logp = torch.log(y_pred.to(torch.float64) + epsilon()).detach().cpu().numpy()
    lengths = _t(input_length).reshape(-1).to(torch.int64).cpu().numpy()
    if greedy:
        top_paths = 1
    decoded = [np.full((num_samples, num_steps), -1, dtype=np.int64) for _ in range(top_paths)]
    log_prob = np.zeros((num_samples, top_paths), dtype=np.float64)
    for b in range(num_samples):
        seq = logp[b, : int(lengths[b])]
        if greedy:
            labels = collapse(seq.argmax(axis=-1).tolist(), blank)
            decoded[0][b, : len(labels)] = labels
            log_prob[b, 0] = -seq.max(axis=-1).sum()
            continue
        top = seq.max(-1, keepdims=True)  # TF's beam search normalizes the inputs (log softmax)
        norm = seq - top - np.log(np.exp(seq - top).sum(-1, keepdims=True))
        paths = beam_search(norm, beam_width, top_paths, blank)
        for k, (labels, lp) in enumerate(paths):
            labels = collapse(labels, None)  # merge_repeated=True, as Keras' TF 1 decoder
            decoded[k][b, : len(labels)] = labels
            log_prob[b, k] = lp
    dev = y_pred.device
    return ([torch.as_tensor(d, device=dev) for d in decoded],
            torch.as_tensor(log_prob, dtype=y_pred.dtype, device=dev))
