"""`tf.edit_distance`: the Levenshtein distance between sequences given as `SparseTensor`s."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch

from torchestimator._sparse_tensor import SparseTensor


def _sequences(value: SparseTensor, what: str) -> tuple[list[int], dict[tuple, list]]:
    if not isinstance(value, SparseTensor):
        raise TypeError(f"edit_distance: {what} must be a SparseTensor; received {type(value).__name__}.")
    shape = value.shape
    values = value.values.tolist() if isinstance(value.values, np.ndarray) else value.values.tolist()
    rows: dict[tuple, list] = {}
    for index, v in sorted(zip(map(tuple, value.indices.tolist()), values)):
        rows.setdefault(index[:-1], []).append(v)
    return list(shape), rows


def _levenshtein(a: list, b: list) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def edit_distance(hypothesis: Any, truth: Any, normalize: bool = True, name: str = "edit_distance") -> torch.Tensor:
    """The Levenshtein distance between the sequences (the last dimension) of `hypothesis` and
    `truth`, of shape `[*outer dims]` (the larger of the two); with `normalize`, divided by the
    truth's length (inf when the truth is empty and the hypothesis is not, 0 when both are)."""
    h_shape, h_rows = _sequences(hypothesis, "hypothesis")
    t_shape, t_rows = _sequences(truth, "truth")
    if len(h_shape) != len(t_shape):
        raise ValueError(f"edit_distance: hypothesis and truth must have the same rank; received "
                         f"{len(h_shape)} and {len(t_shape)}.")
    outer = [max(a, b) for a, b in zip(h_shape[:-1], t_shape[:-1])]
    out = []
    for row in itertools.product(*map(range, outer)):
        h, t = h_rows.get(row, []), t_rows.get(row, [])
        distance = float(_levenshtein(h, t))
        if normalize:
            distance = distance / len(t) if t else (float("inf") if h else 0.0)
        out.append(distance)
    return torch.tensor(out, dtype=torch.float32).reshape(outer)
