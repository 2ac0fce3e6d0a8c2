"""The collective operations data-parallel training needs, over the default process group.

* `average_gradients`: DistributedDataParallel's algorithm — gradients are
  flattened into buckets (`BUCKET_BYTES`, as DDP's 25 MiB), each bucket is
  all-reduced (summed) and divided by the number of replicas. The optimizers
  call it on their gradients while a data-parallel run is active (through the
  run's `GradientSync`, `_engine/gradient_sync.py`), so every replica applies the same averaged gradient
  and the replicas stay bit-identical. (DDP itself needs the forward pass to go
  through its wrapper module; a `model_fn` calls its layers directly, so the
  same reduction runs at the optimizer instead.)
* `broadcast_`: the chief's tensors to every replica (initial weights).
* `sum_`: exact sums (metric state, counts).
* `all_agree`: one small all-reduce deciding that every replica has a next batch.
* `sum_values`: a few numbers summed in one small all-reduce (when no gradient
  all-reduce could carry them).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.distributed as dist
from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors

BUCKET_BYTES = 25 * 1024 * 1024


def world_size() -> int:
    """The number of processes in the default group (1 without one)."""
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def rank() -> int:
    """This process's rank in the default group (0 without one)."""
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def _buckets(tensors: Sequence[torch.Tensor]) -> list[list[int]]:
    """Indices of `tensors` grouped into buckets of one dtype and device, each <= BUCKET_BYTES
    (a larger tensor is a bucket of its own)."""
    buckets: list[list[int]] = []
    open_: dict[tuple, tuple[list[int], int]] = {}
    for index, t in enumerate(tensors):
        key = (t.dtype, t.device)
        size = t.numel() * t.element_size()
        current = open_.get(key)
        if current is None or current[1] + size > BUCKET_BYTES:
            bucket: list[int] = []
            buckets.append(bucket)
            current = (bucket, 0)
        current[0].append(index)
        open_[key] = (current[0], current[1] + size)
    return buckets


def _reduce(tensors: Sequence[torch.Tensor], op: dist.ReduceOp, scale: float | None,
            extra: list[float] | None = None) -> list[torch.Tensor]:
    """`tensors` reduced with `op` (then scaled), bucket by bucket. `extra`: a value that rides
    along in the first bucket (summed over the replicas, unscaled), replaced by its sum."""
    out: list[torch.Tensor] = list(tensors)
    for bucket in _buckets(tensors):
        parts = [tensors[i] for i in bucket]
        if extra is not None:
            flat = torch.cat([_flatten_dense_tensors([p.detach() for p in parts]),
                              _as_flat(extra, parts[0].dtype, parts[0].device)])
            dist.all_reduce(flat, op=op)
            extra[:] = flat[-len(extra):].tolist()
            flat = flat[: -len(extra)]
            extra = None
        else:
            flat = parts[0].detach().clone().reshape(-1) if len(parts) == 1 else _flatten_dense_tensors(
                [p.detach() for p in parts])
            dist.all_reduce(flat, op=op)
        if scale is not None:
            flat.mul_(scale)
        if len(parts) == 1:
            out[bucket[0]] = flat.view_as(parts[0])
        else:
            for i, value in zip(bucket, _unflatten_dense_tensors(flat, parts)):
                out[i] = value
    return out


def _as_flat(values: Sequence, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """`values` (numbers or one-element tensors) as one flat tensor of `dtype` on `device`."""
    return torch.stack([torch.as_tensor(v).detach().reshape(()).to(device=device, dtype=dtype) for v in values])


def average_gradients(grads: Sequence[torch.Tensor], extra: list[float] | None = None) -> list[torch.Tensor]:
    """The mean of `grads` over the replicas (new tensors; the inputs are left as they are).

    `extra` (small numbers or one-element tensors: a flag, the step's loss) is summed over the
    replicas in the same all-reduce, in place (replaced by Python floats)."""
    n = world_size()
    if n <= 1 or not grads:
        return list(grads)
    return _reduce([g.to_dense() if g.is_sparse else g for g in grads], dist.ReduceOp.SUM, 1.0 / n, extra)


def sum_(tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """The sums of `tensors` over the replicas (new tensors)."""
    if world_size() <= 1 or not tensors:
        return [t.detach().clone() for t in tensors]
    return _reduce(tensors, dist.ReduceOp.SUM, None)


def sum_values(values: Sequence, device: torch.device | None = None) -> list[float]:
    """`values` (numbers or one-element tensors) summed over the replicas in one float64
    all-reduce on `device` (default CPU); returns Python floats."""
    if world_size() <= 1:
        return [float(torch.as_tensor(v)) for v in values]
    flat = _as_flat(values, torch.float64, device or torch.device("cpu"))
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    return flat.tolist()


def reduce(tensor: torch.Tensor, op: dist.ReduceOp) -> torch.Tensor:
    """`tensor` reduced with `op` over the replicas (a new tensor)."""
    if world_size() <= 1:
        return tensor.detach().clone()
    return _reduce([tensor], op, None)[0]


def broadcast_(tensors: Sequence[torch.Tensor], src: int = 0) -> None:
    """Overwrites `tensors` in place with rank `src`'s values."""
    if world_size() <= 1 or not tensors:
        return
    with torch.no_grad():
        for bucket in _buckets(tensors):
            parts = [tensors[i] for i in bucket]
            flat = _flatten_dense_tensors([p.detach() for p in parts])
            dist.broadcast(flat, src)
            for part, value in zip(parts, _unflatten_dense_tensors(flat, parts)):
                part.copy_(value)


def broadcast_object(value: object, src: int = 0) -> object:
    """Rank `src`'s `value` (a small JSON-like Python value) on every rank."""
    if world_size() <= 1:
        return value
    box = [value]
    dist.broadcast_object_list(box, src)
    return box[0]


def all_agree(flag: bool) -> bool:
    """True when `flag` is true on every replica (one 1-element all-reduce)."""
    if world_size() <= 1:
        return flag
    value = torch.tensor([1 if flag else 0], dtype=torch.int32)
    dist.all_reduce(value, op=dist.ReduceOp.MIN)
    return bool(value.item())


def all_gather(tensor: torch.Tensor, axis: int = 0) -> torch.Tensor:
    """The replicas' `tensor`s concatenated along `axis` (sizes along `axis` may differ)."""
    n = world_size()
    if n <= 1:
        return tensor
    if tensor.device.type != "cpu" and dist.get_backend() == "gloo":  # gloo gathers host tensors only
        return all_gather(tensor.cpu(), axis).to(tensor.device)
    sizes = [torch.zeros(1, dtype=torch.int64) for _ in range(n)]
    dist.all_gather(sizes, torch.tensor([tensor.shape[axis]], dtype=torch.int64))
    longest = int(max(int(s) for s in sizes))
    moved = tensor.movedim(axis, 0).contiguous()
    padded = torch.zeros((longest, *moved.shape[1:]), dtype=moved.dtype, device=moved.device)
    padded[: moved.shape[0]] = moved
    parts = [torch.empty_like(padded) for _ in range(n)]
    dist.all_gather(parts, padded)
    return torch.cat([p[: int(s)] for p, s in zip(parts, sizes)]).movedim(0, axis)


def barrier() -> None:
    """Waits until every replica reaches this point."""
    if world_size() > 1:
        dist.barrier()
