"""One-hot label batches that also carry their class ids.

A Keras program with one-hot labels (`to_categorical`) computes a soft-label
crossentropy (`-sum(y * log_softmax(z))`: four more ops forward and four more
autograd nodes than the class-id kernel) and an accuracy that takes the
argmax of every label row. When the labels `fit` or `evaluate` were given are
exactly one-hot (every row a single 1.0 among 0.0s), both equal their
class-id forms; the data adapter checks that once per call and tags each
label batch with its class ids (`tag`). The crossentropy and the accuracy
read the ids (`class_ids`) when the batch carries them and has not been
written in place since it was tagged; anything else takes the general path.
"""

from __future__ import annotations

import torch

from torchestimator._torch_private import version

_ATTRIBUTE = "_keras_class_ids"


#: Label arrays of more elements than this are not checked (the check reads every value).
MAX_CHECKED_ELEMENTS = 1 << 26

#: Rows checked at a time (bounds the check's temporary memory).
_CHUNK_ROWS = 1 << 16


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


def tag(labels: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Attaches the class ids `ids` ([batch] int64) to the label batch `labels`; returns it."""
    setattr(labels, _ATTRIBUTE, (ids, version(labels)))
    return labels


def class_ids(labels: torch.Tensor) -> torch.Tensor | None:
    """The class ids tagged on `labels`, or None when it has none or was modified in place since."""
    tagged = getattr(labels, _ATTRIBUTE, None)
    if tagged is None or tagged[1] != version(labels):
        return None
    return tagged[0]
