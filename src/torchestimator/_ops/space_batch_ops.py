"""`tf.space_to_batch(_nd)`, `tf.batch_to_space` and `tf.required_space_to_batch_paddings`:
moving blocks of the spatial dimensions into the batch dimension and back (TF's layout:
`[batch, *spatial, *rest]`, output batch `block_offset * batch + b`)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor


def _ints(value: Any, what: str) -> list[int]:
    return [int(v) for v in convert_to_tensor(value, dtype=torch.int64).reshape(-1).tolist()]


def _pairs(value: Any, m: int, what: str, owner: str) -> list[tuple[int, int]]:
    flat = _ints(value, what)
    if len(flat) != 2 * m:
        raise ValueError(f"{owner}: {what} must have shape [{m}, 2]; received {len(flat)} values.")
    pairs = [(flat[2 * i], flat[2 * i + 1]) for i in range(m)]
    if any(a < 0 or b < 0 for a, b in pairs):
        raise ValueError(f"{owner}: {what} must be >= 0; received {pairs}.")
    return pairs


def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any, name: str | None = None) -> torch.Tensor:  # noqa: A002
    """Zero-pads the `M` spatial dimensions by `paddings`, splits each into blocks of
    `block_shape`, and moves the blocks into the batch dimension."""
    x = convert_to_tensor(input)
    block = _ints(block_shape, "block_shape")
    m = len(block)
    if m < 1 or any(b < 1 for b in block) or x.ndim < m + 1:
        raise ValueError(f"space_to_batch_nd: block_shape must be >= 1 for each of M >= 1 spatial dimensions "
                         f"of an input of rank > M; received block_shape {block} for shape {tuple(x.shape)}.")
    pads = _pairs(paddings, m, "paddings", "space_to_batch_nd")
    torch_pads: list[int] = []
    for a, b in reversed(pads + [(0, 0)] * (x.ndim - 1 - m)):
        torch_pads += [a, b]
    x = torch.nn.functional.pad(x, torch_pads) if any(torch_pads) else x
    batch, spatial, rest = x.shape[0], list(x.shape[1: m + 1]), list(x.shape[m + 1:])
    for i, (size, b) in enumerate(zip(spatial, block)):
        if size % b:
            raise ValueError(f"space_to_batch_nd: padded spatial dimension {i} is {size}, not a multiple of "
                             f"block_shape[{i}] = {b}.")
    shape = [batch]
    for size, b in zip(spatial, block):
        shape += [size // b, b]
    x = x.reshape(shape + rest)
    # [batch, s1/b1, b1, ..., sM/bM, bM, rest] -> [b1, ..., bM, batch, s1/b1, ..., sM/bM, rest]
    order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, x.ndim))
    x = x.permute(order)
    out_batch = batch
    for b in block:
        out_batch *= b
    return x.reshape([out_batch] + [size // b for size, b in zip(spatial, block)] + rest)


def space_to_batch(input: Any, block_shape: Any, paddings: Any, name: str | None = None) -> torch.Tensor:  # noqa: A002
    """`space_to_batch_nd` (TF 2's `tf.space_to_batch`)."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input: Any, block_shape: Any, crops: Any, name: str | None = None) -> torch.Tensor:  # noqa: A002
    """The inverse of `space_to_batch_nd`: moves blocks from the batch dimension back into the
    `M` spatial dimensions, then crops them by `crops`."""
    x = convert_to_tensor(input)
    block = _ints(block_shape, "block_shape")
    m = len(block)
    prod = 1
    for b in block:
        prod *= b
    if m < 1 or any(b < 1 for b in block) or x.ndim < m + 1 or x.shape[0] % prod:
        raise ValueError(f"batch_to_space: the batch ({x.shape[0]}) must be a multiple of the product of "
                         f"block_shape {block}, for M >= 1 spatial dimensions; input shape {tuple(x.shape)}.")
    crop = _pairs(crops, m, "crops", "batch_to_space")
    batch = x.shape[0] // prod
    spatial, rest = list(x.shape[1: m + 1]), list(x.shape[m + 1:])
    x = x.reshape(block + [batch] + spatial + rest)
    # [b1..bM, batch, s1..sM, rest] -> [batch, s1, b1, ..., sM, bM, rest]
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, x.ndim))
    x = x.permute(order).reshape([batch] + [s * b for s, b in zip(spatial, block)] + rest)
    slices = [slice(None)] + [slice(a, x.shape[1 + i] - b) for i, (a, b) in enumerate(crop)]
    return x[tuple(slices)]


def required_space_to_batch_paddings(input_shape: Any, block_shape: Any, base_paddings: Any = None,
                                     name: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """`(paddings, crops)` that make the padded `input_shape` divisible by `block_shape`
    (extra padding at the end) and undo that extra padding afterwards (int32 [M, 2])."""
    shape = _ints(input_shape, "input_shape")
    block = _ints(block_shape, "block_shape")
    if len(shape) != len(block):
        raise ValueError(f"required_space_to_batch_paddings: input_shape {shape} and block_shape {block} must "
                         "have one entry per spatial dimension.")
    base = _pairs(base_paddings, len(block), "base_paddings", "required_space_to_batch_paddings") \
        if base_paddings is not None else [(0, 0)] * len(block)
    paddings, crops = [], []
    for size, b, (start, end) in zip(shape, block, base):
        padded = size + start + end
        extra = (b - padded % b) % b
        paddings.append([start, end + extra])
        crops.append([0, extra])
    return torch.tensor(paddings, dtype=torch.int32), torch.tensor(crops, dtype=torch.int32)
