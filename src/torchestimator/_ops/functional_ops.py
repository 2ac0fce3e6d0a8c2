"""Higher-order ops: `tf.map_fn`, `tf.vectorized_map`, `tf.foldl`, `tf.foldr`, `tf.scan`.

Eager and on torch: `map_fn` calls the function on each slice along the first
axis and stacks the results (nested structures included); `vectorized_map`
runs the function once over the whole batch with `torch.vmap` and falls back
to `map_fn` when the function cannot be vectorized (Python control flow on
values, ops without a batching rule).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from torchestimator._ops import nest
from torchestimator._ops.convert import convert_to_tensor

__all__ = ["foldl", "foldr", "map_fn", "scan", "vectorized_map"]


def _as_tensors(elems: Any) -> Any:
    return nest.map_structure(
        lambda e: e if isinstance(e, torch.Tensor) else convert_to_tensor(e), elems)


def _length(flat: list, op: str) -> int:
    if not flat:
        raise ValueError(f"{op}: elems must be a tensor or a non-empty structure of tensors.")
    sizes = {int(t.shape[0]) if t.dim() else -1 for t in flat}
    if -1 in sizes:
        raise ValueError(f"{op}: elems must have at least one dimension to unstack along.")
    if len(sizes) != 1:
        raise ValueError(f"{op}: all elems must have the same first dimension; got {sorted(sizes)}.")
    return sizes.pop()


def _slices(elems: Any, op: str) -> tuple[list, int]:
    flat = nest.flatten(elems)
    n = _length(flat, op)
    return [nest.pack_sequence_as(elems, [t[i] for t in flat]) for i in range(n)], n


def _stack(results: list, op: str) -> Any:
    first = results[0]
    flat = [nest.flatten(r) for r in results]
    stacked = [torch.stack([convert_to_tensor(parts[i]) for parts in flat])
               for i in range(len(flat[0]))]
    return nest.pack_sequence_as(first, stacked)


def map_fn(fn: Callable, elems: Any, dtype: Any = None, parallel_iterations: Any = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: str | None = None, fn_output_signature: Any = None) -> Any:
    """Applies `fn` to each element of `elems` unstacked along axis 0 and stacks the results.

    Returns:
        A tensor (or the structure `fn` returns) whose first dimension is that of `elems`.
    """
    elems = _as_tensors(elems)
    items, n = _slices(elems, "map_fn")
    if n == 0:
        raise ValueError("map_fn: elems is empty along axis 0; there is nothing to map.")
    return _stack([fn(item) for item in items], "map_fn")


def vectorized_map(fn: Callable, elems: Any, fallback_to_while_loop: bool = True,
                   warn: bool = True) -> Any:
    """Applies `fn` to each element of `elems` at once (torch.vmap), as TF's `vectorized_map`.

    Returns:
        The stacked results, as `map_fn` would return them.
    """
    elems = _as_tensors(elems)
    try:
        return torch.vmap(fn)(elems)
    except Exception:  # noqa: BLE001 - any failure to vectorize falls back, as TF's does
        if not fallback_to_while_loop:
            raise
        return map_fn(fn, elems)


def _fold(fn: Callable, elems: Any, initializer: Any, op: str, reverse: bool) -> Any:
    items, n = _slices(_as_tensors(elems), op)
    if reverse:
        items = items[::-1]
    if initializer is None:
        if n == 0:
            raise ValueError(f"{op}: elems is empty and no initializer was given.")
        accumulator, items = items[0], items[1:]
    else:
        accumulator = initializer
    for item in items:
        accumulator = fn(accumulator, item)
    return accumulator


def foldl(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: Any = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """Folds `fn(accumulator, element)` over `elems` from the first element to the last.

    Returns:
        The final accumulator.
    """
    return _fold(fn, elems, initializer, "foldl", reverse=False)


def foldr(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: Any = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """Folds `fn(accumulator, element)` over `elems` from the last element to the first.

    Returns:
        The final accumulator.
    """
    return _fold(fn, elems, initializer, "foldr", reverse=True)


def scan(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: Any = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: str | None = None) -> Any:
    """Applies `fn(accumulator, element)` along `elems` and stacks every accumulator.

    Returns:
        The stacked accumulators, one per element (in `elems` order, also when `reverse`).
    """
    items, n = _slices(_as_tensors(elems), "scan")
    order = items[::-1] if reverse else items
    outputs = []
    if initializer is None:
        if n == 0:
            raise ValueError("scan: elems is empty and no initializer was given.")
        accumulator, order = order[0], order[1:]
        outputs.append(accumulator)
    else:
        accumulator = initializer
    for item in order:
        accumulator = fn(accumulator, item)
        outputs.append(accumulator)
    if reverse:
        outputs = outputs[::-1]
    return _stack(outputs, "scan")
