"""`tf.dynamic_partition`, `tf.dynamic_stitch` and `tf.parallel_stack`."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor


def dynamic_partition(data: Any, partitions: Any, num_partitions: int, name: str | None = None) -> list[torch.Tensor]:
    """Partitions `data` into `num_partitions` tensors by the indices in `partitions`: output
    `i` holds, in order, the slices `data[js]` with `partitions[js] == i` (`partitions` is a
    prefix of `data`'s shape)."""
    data = convert_to_tensor(data)
    partitions = convert_to_tensor(partitions).to(torch.int64)
    if isinstance(num_partitions, bool) or not isinstance(num_partitions, int) or num_partitions < 1:
        raise ValueError(f"dynamic_partition: num_partitions must be an int >= 1; received {num_partitions!r}.")
    if tuple(data.shape[: partitions.ndim]) != tuple(partitions.shape):
        raise ValueError(f"dynamic_partition: partitions' shape {tuple(partitions.shape)} must be a prefix of "
                         f"data's shape {tuple(data.shape)}.")
    flat_parts = partitions.reshape(-1)
    if flat_parts.numel() and (int(flat_parts.min()) < 0 or int(flat_parts.max()) >= num_partitions):
        bad = flat_parts[(flat_parts < 0) | (flat_parts >= num_partitions)][0]
        raise ValueError(f"dynamic_partition: partitions holds {int(bad)}, outside [0, {num_partitions}).")
    flat_data = data.reshape((-1,) + tuple(data.shape[partitions.ndim:]))
    return [flat_data[flat_parts == i] for i in range(num_partitions)]


def dynamic_stitch(indices: list, data: list, name: str | None = None) -> torch.Tensor:
    """Interleaves the values of the `data` tensors into one tensor: `merged[indices[m][i]] =
    data[m][i]` (a later `m` wins for a repeated index)."""
    if len(indices) != len(data) or not indices:
        raise ValueError(f"dynamic_stitch: give as many indices as data tensors (at least one); received "
                         f"{len(indices)} and {len(data)}.")
    index_tensors = [convert_to_tensor(i).to(torch.int64) for i in indices]
    data_tensors = [convert_to_tensor(d) for d in data]
    inner = None
    for m, (idx, values) in enumerate(zip(index_tensors, data_tensors)):
        if tuple(values.shape[: idx.ndim]) != tuple(idx.shape):
            raise ValueError(f"dynamic_stitch: data[{m}] of shape {tuple(values.shape)} must start with "
                             f"indices[{m}]'s shape {tuple(idx.shape)}.")
        rest = tuple(values.shape[idx.ndim:])
        if inner is not None and rest != inner:
            raise ValueError(f"dynamic_stitch: data[{m}] has slices of shape {rest}, data[0] of {inner}.")
        inner = rest
    size = max((int(i.max()) + 1 for i in index_tensors if i.numel()), default=0)
    merged = torch.zeros((size, *inner), dtype=data_tensors[0].dtype, device=data_tensors[0].device)
    for idx, values in zip(index_tensors, data_tensors):
        merged[idx.reshape(-1)] = values.reshape((-1, *inner)).to(merged.dtype)
    return merged


def parallel_stack(values: list, name: str = "parallel_stack") -> torch.Tensor:
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along a new first axis (as
    `tf.stack` with axis 0; TF's version only runs inside a graph)."""
    tensors = [convert_to_tensor(v) for v in values]
    shapes = {tuple(t.shape) for t in tensors}
    if len(shapes) != 1:
        raise ValueError(f"parallel_stack: every value must have the same shape; received {sorted(shapes)}.")
    return torch.stack(tensors)
