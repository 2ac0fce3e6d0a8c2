"""Labels and class names for the classification heads: string labels through a
`label_vocabulary`, range checks, and the string class names of predictions.

TF's string tensors are numpy arrays here: labels may be numpy arrays (or lists)
of `str` or `bytes`; the `classes` / `all_classes` predictions are numpy object
arrays of `bytes`, as TF's string tensors read back with `.numpy()`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._engine import export_capture, host_twins, loop


def is_string_like(values: Any) -> bool:
    """True for numpy arrays / (nested) lists holding str or bytes."""
    if isinstance(values, torch.Tensor):
        return False
    if isinstance(values, (str, bytes)):
        return True
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "US":
            return True
        if values.dtype.kind == "O":
            flat = values.reshape(-1)
            return flat.size > 0 and isinstance(flat[0], (str, bytes))
        return False
    if isinstance(values, (list, tuple)) and values:
        return is_string_like(np.asarray(values, dtype=object))
    return False


def _as_text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def check_label_vocabulary(label_vocabulary: Any, n_classes: int | None, owner: str) -> tuple | None:
    """Validates a `label_vocabulary` argument; returns it as a tuple of str (or None)."""
    if label_vocabulary is None:
        return None
    if not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(
            f"{owner}: label_vocabulary should be a list or a tuple. Given type: "
            f"{type(label_vocabulary).__name__}."
        )
    vocab = tuple(_as_text(v) for v in label_vocabulary)
    if len(set(vocab)) != len(vocab):
        raise ValueError(f"{owner}: label_vocabulary has duplicate entries: {list(vocab)}.")
    if n_classes is not None and len(vocab) != n_classes:
        raise ValueError(
            f"{owner}: label_vocabulary must have n_classes={n_classes} entries; it has "
            f"{len(vocab)}: {list(vocab)}."
        )
    return vocab


def as_label_tensor(labels: Any, device: torch.device) -> torch.Tensor:
    """Numeric labels (tensor, numpy array, list) as a tensor on `device`.

    Raises ValueError for string labels (a `label_vocabulary` is needed for them).
    """
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested troubleshooting "
                         "steps: Check that your data contain your label feature. Check that your "
                         "input_fn properly parses and returns labels.")
    if is_string_like(labels):
        sample = np.asarray(labels, dtype=object).reshape(-1)[:3].tolist()
        raise ValueError(
            f"Labels are strings (e.g. {sample}), but no label_vocabulary was given. Pass "
            "label_vocabulary=[...] listing every class name, or encode the labels as integer "
            "class ids."
        )
    if not isinstance(labels, torch.Tensor):
        labels = torch.as_tensor(np.asarray(labels))
    return labels.to(device)


def lookup_class_ids(labels: Any, vocabulary: Sequence[str], device: torch.device) -> torch.Tensor:
    """Maps string labels to their index in `vocabulary` (int64 tensor of the labels' shape).

    Raises ValueError for non-string labels and for a label missing from the vocabulary.
    """
    if isinstance(labels, torch.Tensor) or not is_string_like(labels):
        kind = labels.dtype if hasattr(labels, "dtype") else type(labels).__name__
        raise ValueError(
            f"label_vocabulary={list(vocabulary)} is given, so labels must be strings from it; "
            f"received labels of type {kind}. Pass the class names as labels, or drop "
            "label_vocabulary and use integer class ids."
        )
    array = np.asarray(labels, dtype=object)
    uniques, inverse = np.unique(array.reshape(-1), return_inverse=True)
    index = {v: i for i, v in enumerate(vocabulary)}
    ids = np.empty(len(uniques), dtype=np.int64)
    for position, value in enumerate(uniques):
        found = index.get(_as_text(value))
        if found is None:
            raise ValueError(
                f"Label {_as_text(value)!r} is not in label_vocabulary {list(vocabulary)}. Every "
                "label must be one of the vocabulary's strings; add it to label_vocabulary or fix "
                "the data."
            )
        ids[position] = found
    out = ids[inverse].reshape(array.shape)
    return torch.from_numpy(out).to(device)


def check_label_range(labels: torch.Tensor, n_classes: int, message: str | None = None,
                      defer: bool | None = None, clamp: bool = True) -> torch.Tensor:
    """Raises ValueError unless every label is in [0, n_classes - 1]; returns `labels`.

    On an accelerator, in the training loop, the check does not read the labels back each step:
    it is deferred (`loop.check_value_range`) and raises, with the same message, when the loop
    reads it (the first step, then every `loop.CHECK_EVERY_N_STEPS` steps, and the last);
    integer labels are returned clamped into range meanwhile, so that no kernel asserts on them
    (`clamp=False`: labels that index no kernel are returned as they are). Outside the loop the
    range is read back at once. `defer` overrides the choice of device (None: every device but
    the CPU).
    """
    if labels.numel() == 0:
        return labels
    values = labels.detach()
    if values.dtype not in (torch.int64, torch.int32, torch.float32, torch.float64):
        values = values.to(torch.float64)
    if loop.defers_checks(values.device) if defer is None else defer:
        if loop.check_value_range(values, ("label_range", n_classes, message, values.dtype),
                                  lambda lo, hi: _range_error(lo.item(), hi.item(), n_classes, message, None)):
            return labels if labels.is_floating_point() or not clamp else labels.clamp(0, n_classes - 1)
        return labels
    low, high = torch.aminmax(values)
    error = _range_error(low.item(), high.item(), n_classes, message, values)
    if error is not None:
        raise error
    return labels


def _range_error(low: float, high: float, n_classes: int, message: str | None,
                 values: torch.Tensor | None) -> ValueError | None:
    if math.isnan(low) or math.isnan(high):  # aminmax propagates a NaN label
        expected = f"class ids in [0, {n_classes})"
        if values is None:
            return ValueError(deferred_nan_labels_message(expected))
        return ValueError(nan_labels_message(values, expected))
    if high > n_classes - 1:
        return ValueError(message or (
            f"Labels must be <= {n_classes} - 1; found label {high:g}. Labels are class ids "
            f"in [0, {n_classes}) (n_classes={n_classes}); use label_vocabulary for string labels."
        ))
    if low < 0:
        return ValueError(message or (
            f"Labels must be >= 0; found label {low:g}. Labels are class ids in "
            f"[0, {n_classes})."
        ))
    return None


# Folds of the deferred checks below: the non-integer and NaN counts summed; the smallest label.
_SUM_FOLD = loop.fold_by(torch.sum)
_MIN_FOLD = loop.fold_by(torch.amin)


def check_integer_labels(labels: torch.Tensor, n_classes: int, owner: str) -> None:
    """Raises ValueError unless floating-point `labels` hold whole numbers (NaN named as such);
    deferred on an accelerator in the training loop as `check_label_range` is (labels just
    copied from the host are checked there at once)."""
    if not labels.is_floating_point():
        return
    expected = f"integer class ids in [0, {n_classes})"
    non_integer = (f"{owner}: labels must be integer class ids in [0, {n_classes}); received "
                   f"non-integer floats (dtype {labels.dtype}).")
    host = copied_from_host(labels)
    if host is not None:
        labels = host
    elif loop.deferred_here(labels.device):
        values = labels.detach()
        counts = torch.stack([(values != values.round()).sum(), torch.isnan(values).sum()])
        loop.defer_check(("integer_labels", owner, n_classes, labels.dtype), (counts,),
                         _SUM_FOLD, lambda c: _integer_error(c, expected, non_integer))
        return
    if not torch.equal(labels, labels.round()):
        if bool(torch.isnan(labels).any()):
            raise ValueError(nan_labels_message(labels, expected))
        raise ValueError(non_integer)


def _integer_error(counts: torch.Tensor, expected: str, non_integer: str) -> ValueError | None:
    bad, nan = counts.tolist()
    if nan:
        return ValueError(deferred_nan_labels_message(expected, nan))
    return ValueError(non_integer) if bad else None


def copied_from_host(labels: torch.Tensor) -> torch.Tensor | None:
    """The host tensor of `labels`' values when they are the very ones the loop copied from
    there (`host_twins`): checks read it at once, without the device; else None."""
    on_host = host_twins.host_values(labels)
    return None if on_host is None else torch.from_numpy(on_host)


def deferred_nan_labels_message(expected: str, count: int | None = None) -> str:
    """The error for NaN labels found by a deferred check (the batch is gone by then)."""
    how_many = "" if count is None else f" ({count} label value(s) since the last check)"
    return (
        f"Labels contain NaN{how_many}; labels must be {expected}. A NaN label is usually a "
        "missing value in the data: fill it, or drop those examples (e.g. `dataset.filter`) "
        "before training."
    )


def check_non_negative(labels: torch.Tensor, message: str) -> None:
    """Raises ValueError(`message` formatted with `found=` the smallest label) when a label is
    negative; deferred on an accelerator in the training loop as `check_label_range` is (labels
    just copied from the host are checked there at once)."""
    if labels.numel() == 0:
        return
    host = copied_from_host(labels)
    low = (labels if host is None else host).detach().min()
    if host is None and loop.deferred_here(low.device):
        loop.defer_check(("non_negative", message, low.dtype), (low,),
                         _MIN_FOLD,
                         lambda lo: ValueError(message.format(found=lo.item())) if lo.item() < 0 else None)
        return
    if float(low) < 0:
        raise ValueError(message.format(found=float(low)))


def nan_labels_message(labels: torch.Tensor, expected: str) -> str:
    """The error for labels holding NaN: how many, where the first is, what was expected."""
    nan = torch.isnan(labels.reshape(-1))
    count, first = int(nan.sum()), int(nan.nonzero()[0, 0])
    return (
        f"Labels contain NaN: {count} of {nan.numel()} label value(s) in the batch are nan (the "
        f"first at position {first} of the flattened labels); labels must be {expected}. A NaN "
        "label is usually a missing value in the data: fill it, or drop those examples (e.g. "
        "`dataset.filter`) before training."
    )


def class_names(n_classes: int, vocabulary: Sequence[str] | None) -> np.ndarray:
    """The class names as a numpy object array of bytes: the vocabulary, or b'0', b'1', ..."""
    names = vocabulary if vocabulary is not None else [str(i) for i in range(n_classes)]
    out = np.empty(len(names), dtype=object)
    out[:] = [n.encode("utf-8") for n in names]
    return out


def classes_of(class_ids: torch.Tensor, n_classes: int, vocabulary: Sequence[str] | None) -> np.ndarray:
    """The class name (bytes) of every id in `class_ids`, as a numpy object array of its shape
    (during an export, a `StringOutput` of the ids and the names)."""
    names = class_names(n_classes, vocabulary)
    return export_capture.string_output(
        class_ids, names, lambda: names[class_ids.detach().cpu().numpy()]
    )


def all_classes(batch_shape: tuple, n_classes: int, vocabulary: Sequence[str] | None) -> np.ndarray:
    """Every class name for every example: a numpy object array [*batch_shape, n_classes]
    (the heads pass the first dimension only, as TF tiles it)."""
    names = class_names(n_classes, vocabulary)
    shape = tuple(batch_shape) + (n_classes,)
    if export_capture.active() is None:
        return np.broadcast_to(names, shape).copy()
    return export_capture.string_output(torch.arange(n_classes).expand(shape), names, lambda: None)


def all_class_ids(logits: torch.Tensor, n_classes: int) -> torch.Tensor:
    """`[0, ..., n_classes - 1]` for every example: int32 [batch_size, n_classes] (one row per
    example of the first dimension, also for logits of higher rank, as TF tiles it)."""
    ids = torch.arange(n_classes, dtype=torch.int32, device=logits.device)
    return ids.expand((logits.shape[0], n_classes))
