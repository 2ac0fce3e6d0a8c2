"""One-hot label batches and their class ids, decided once per `fit`/`evaluate` call.

A Keras program with one-hot labels (`to_categorical`) computes a soft-label
crossentropy (`-sum(y * log_softmax(z))`: four more ops forward and four more
autograd nodes than the class-id kernel) and an accuracy that takes the
argmax of every label row. When the labels `fit` or `evaluate` were given are
exactly one-hot (every row a single 1.0 among 0.0s), both equal their
class-id forms.

The decision is made once, on the whole label array (`class_ids_of`, in the data
adapter). Each label batch the adapter then yields is recorded with its ids as a
`LabelIds` (`record`); the crossentropy and the accuracy ask `class_ids(y_true)`, which
answers only for that very tensor, unwritten since it was recorded. Nothing is attached to
the tensor: labels from anywhere else (a dataset, a generator, a new tensor made in a
`train_step`, a copy to another device) are simply not recorded and take the general path.

Invariant: `class_ids(y)` is not None only when `y` is exactly one-hot and
`y.argmax(1) == class_ids(y)` row for row.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import torch

from torchestimator._torch_private import version

#: Label arrays of more elements than this are not checked (the check reads every value).
MAX_CHECKED_ELEMENTS = 1 << 26

#: Rows checked at a time (bounds the check's temporary memory).
_CHUNK_ROWS = 1 << 16

#: The most recorded label batches kept (a prefetching loop holds a few ahead of the step).
_RECORDED = 8


class LabelIds(NamedTuple):
    """A label batch (held weakly by `labels`, [batch, classes], exactly one-hot) and its class
    ids (`ids`, [batch] int64), as the data adapter yielded them; `written` is the batch's
    in-place write counter then (a later write makes the record stale)."""

    labels: weakref.ref
    ids: torch.Tensor
    written: Any

    def ids_for(self, labels: torch.Tensor) -> torch.Tensor | None:
        """The class ids when `labels` is this record's tensor, not written since; else None."""
        if self.labels() is not labels or version(labels) != self.written:
            return None
        return self.ids


# id(labels) -> its record, dropped when the labels are freed (the record holds them weakly);
# the identity check in `LabelIds.ids_for` makes a reused id harmless
_BATCHES: dict[int, LabelIds] = {}


def class_ids_of(labels: torch.Tensor) -> torch.Tensor | None:
    """The class id of every row of `labels` ([N, C] floating, C >= 2, at most
    `MAX_CHECKED_ELEMENTS` values) when each row is exactly one-hot; None otherwise (and for
    anything that is not such a tensor)."""
    if (type(labels) is not torch.Tensor or labels.ndim != 2 or labels.shape[1] < 2
            or not labels.is_floating_point() or not labels.numel()
            or labels.numel() > MAX_CHECKED_ELEMENTS):
        return None
    ids = []
    for start in range(0, labels.shape[0], _CHUNK_ROWS):
        chunk = labels[start:start + _CHUNK_ROWS]
        ones = chunk == 1
        if not bool(((chunk == 0) | ones).all()) or not bool((ones.sum(1) == 1).all()):
            return None
        ids.append(ones.to(torch.uint8).argmax(1))
    return torch.cat(ids)


def record(labels: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Records `ids` ([batch] int64) as the class ids of the exactly one-hot label batch
    `labels` (the data adapter's own tensor, about to be yielded); returns `labels`."""
    if len(_BATCHES) >= _RECORDED:
        _BATCHES.pop(next(iter(_BATCHES)), None)  # the oldest record
    key = id(labels)
    _BATCHES[key] = LabelIds(weakref.ref(labels, lambda ref: _drop(key, ref)), ids, version(labels))
    return labels


def _drop(key: int, ref: weakref.ref) -> None:
    entry = _BATCHES.get(key)
    if entry is not None and entry.labels is ref:
        del _BATCHES[key]


def class_ids(labels: torch.Tensor) -> torch.Tensor | None:
    """The class ids recorded for the label batch `labels`, or None when it was not recorded
    (or was written in place since): the caller then takes its general path."""
    entry = _BATCHES.get(id(labels))
    return None if entry is None else entry.ids_for(labels)

