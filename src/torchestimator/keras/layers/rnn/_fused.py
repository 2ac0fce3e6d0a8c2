"""Whole-sequence recurrences on torch's fused kernels (`torch._VF.lstm`, `gru`, `rnn_tanh`,
`rnn_relu`: the functions `nn.LSTM`/`nn.GRU`/`nn.RNN` call, cuDNN on a GPU), with Keras'
masking semantics.

Weights arrive already converted to torch's layout (`weight_ih (gates*units, in)`,
torch's gate order). A right-padded mask (each row: ones, then zeros) becomes
sequence lengths and a packed sequence; the outputs are then completed the way
Keras' step loop fills masked steps: the last valid output is repeated after
the end of a sequence (or zeros with `zero_output_for_mask`), and with
`go_backwards` the reversed sequence starts with its padding, whose outputs are
zeros and which leaves the state untouched.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

from torchestimator import _torch_private

_KERNELS = {
    "lstm": torch._VF.lstm,
    "gru": torch._VF.gru,
    "rnn_tanh": torch._VF.rnn_tanh,
    "rnn_relu": torch._VF.rnn_relu,
}


def one_buffer(params: list[torch.Tensor]) -> list[torch.Tensor]:
    """`params` copied, in order, into one new buffer (one copy for all of them), as consecutive
    views from its start: the layout `nn.LSTM.flatten_parameters` gives cuDNN, which then runs on
    that buffer instead of warning that the weights "are not part of single contiguous chunk of
    memory" and compacting them into one again at every call. Differentiable in `params`."""
    flat = _torch_private.flatten_dense_tensors(params)
    return [chunk.view(p.shape) for chunk, p in zip(flat.split([p.numel() for p in params]), params)]


class Lengths(NamedTuple):
    """The per-sample lengths of a right-padded mask, on the host (for packing) and on the
    mask's device (for the index arithmetic around the kernel)."""

    host: torch.Tensor
    device: torch.Tensor


# The last mask read back and its answer: (mask, its identity, answer). The layers of a
# `Bidirectional` and stacked recurrent layers get the same mask (Keras passes it on), so they
# read it back once. Holding the mask keeps its memory from being reused by a later one.
_last_mask: tuple | None = None


def right_padded_lengths(mask_tm: torch.Tensor) -> Lengths | None:
    """Returns the per-sample lengths if the time-major bool mask `(T, B)` is right-padded (each
    row: ones, then zeros), else None. One read-back from the device for both answers, none for
    the same mask again (unchanged since: the same memory, view and version)."""
    global _last_mask
    if mask_tm.is_inference():  # (no version counter to tell a changed mask by)
        return _right_padded_lengths(mask_tm)
    identity = (mask_tm.untyped_storage().data_ptr(), mask_tm.storage_offset(), tuple(mask_tm.shape),
                mask_tm.stride(), _torch_private.version(mask_tm))
    last = _last_mask
    if last is not None and last[1] == identity and last[0].device == mask_tm.device:
        return last[2]
    answer = _right_padded_lengths(mask_tm)
    _last_mask = (mask_tm, identity, answer)
    return answer


def _right_padded_lengths(mask_tm: torch.Tensor) -> Lengths | None:
    steps = mask_tm.shape[0]
    lengths = mask_tm.sum(0)
    expected = torch.arange(steps, device=mask_tm.device).unsqueeze(1) < lengths.unsqueeze(0)
    not_right_padded = (expected != mask_tm).any().reshape(1).to(lengths.dtype)
    on_host = torch.cat([not_right_padded, lengths]).cpu()
    if on_host[0]:
        return None
    return Lengths(on_host[1:], lengths)


def run(
    mode: str,
    x: torch.Tensor,
    states: list[torch.Tensor],
    params: list[torch.Tensor],
    has_biases: bool,
    lengths: Lengths | None,
    go_backwards: bool,
    zero_output_for_mask: bool,
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Runs one recurrent layer over time-major `x` (T, B, F).

    Returns the per-step outputs `(T, B, units)` in Keras' order (reversed
    when `go_backwards`) and the final states, as Keras' masked step loop
    would produce them.
    """
    kernel = _KERNELS[mode]
    if x.device.type != "cpu":  # cuDNN reads its weights from one buffer (the kernels transposed)
        params = one_buffer(params)
    train = torch.is_grad_enabled()
    hx = tuple(s.unsqueeze(0) for s in states) if mode == "lstm" else states[0].unsqueeze(0)
    if lengths is None:
        if go_backwards:
            x = x.flip(0)
        result = kernel(x, hx, params, has_biases, 1, 0.0, train, False, False)
        return result[0], [r[0] for r in result[1:]]
    return _run_padded(kernel, mode, x, hx, states, params, has_biases, lengths, go_backwards,
                       zero_output_for_mask, train)


def _run_padded(kernel, mode, x, hx, states, params, has_biases, lengths, go_backwards,
                zero_output_for_mask, train):
    steps, batch = x.shape[0], x.shape[1]
    lens = lengths.device.clamp(min=1)
    t_index = torch.arange(steps, device=x.device).unsqueeze(1)  # (T, 1)
    if go_backwards:
        # Keras flips the whole sequence (padding first); the state only sees the valid
        # steps, in reverse order. Reverse each sequence within its length.
        rev = lens.unsqueeze(0) - 1 - t_index
        order = torch.where(rev >= 0, rev, t_index)
        x = x.gather(0, order.unsqueeze(-1).expand(-1, -1, x.shape[-1]))
    packed = pack_padded_sequence(x, lengths.host.clamp(min=1), batch_first=False, enforce_sorted=False)
    sorted_idx, unsorted_idx = packed.sorted_indices, packed.unsorted_indices
    if mode == "lstm":
        hx_sorted = tuple(h.index_select(1, sorted_idx) for h in hx)
    else:
        hx_sorted = hx.index_select(1, sorted_idx)
    result = kernel(packed.data, packed.batch_sizes, hx_sorted, params, has_biases, 1, 0.0,
                    train, False)
    out, _ = pad_packed_sequence(
        PackedSequence(result[0], packed.batch_sizes, sorted_idx, unsorted_idx),
        batch_first=False, total_length=steps,
    )
    final = [r.index_select(1, unsorted_idx)[0] for r in result[1:]]
    if go_backwards:
        # The padding comes first in Keras' order: zeros there, then the valid outputs.
        src = t_index - (steps - lens).unsqueeze(0)
        valid = src >= 0
        out = out.gather(0, src.clamp(min=0).unsqueeze(-1).expand(-1, -1, out.shape[-1]))
        out = out * valid.unsqueeze(-1).to(out.dtype)
    elif not zero_output_for_mask:
        valid = t_index < lens.unsqueeze(0)
        out = torch.where(valid.unsqueeze(-1), out, final[0].unsqueeze(0))
    if bool((lengths.host == 0).any()):
        keep = lengths.device != 0
        out = out * keep.view(1, batch, 1).to(out.dtype)
        final = [torch.where(keep.unsqueeze(1), f, s) for f, s in zip(final, states)]
    return out, final
