"""Keras 2.15's `split_dataset` (`keras/utils/dataset_utils.py`): the samples are read into
a list, optionally shuffled with Python's `random` seeded by `seed`, and cut into a left
and a right `tf.data.Dataset`, re-batched like the input when the input is a batched
Dataset. Sizes and error messages are Keras's.
"""

from __future__ import annotations

import random
import time
import warnings
from typing import Any

import numpy as np
import torch

from torchestimator._engine.loop import iter_on_host

__all__ = ["split_dataset"]


def _type_spec(dataset: Any) -> Any:
    from torchestimator import data  # lazy: heavy (torchestimator.data.dataset, 84 ms)

    for kind in (tuple, list, np.ndarray, dict):
        if isinstance(dataset, kind):
            return kind
    if isinstance(dataset, data.Dataset):
        return data.Dataset
    return None


def _is_batched(dataset: Any) -> bool:
    """Keras's `is_batched`: the outermost Dataset is a `batch` (has `_batch_size`)."""
    return hasattr(dataset, "_batch_size")


def _check_arrays(dataset: Any, kind: str) -> None:
    if len(dataset) == 0:
        raise ValueError(
            f"Received an empty list dataset.{' ' if kind == 'list' else ''}"
            f"Please provide a non-empty {kind} of arrays."
        )
    if _type_spec(dataset[0]) is not np.ndarray:
        sep = "," if kind == "list" else ", "
        raise ValueError(
            f"Expected a {kind} of `numpy.ndarray` objects{sep}Received: {type(dataset[0])}"
        )
    expected_shape = dataset[0].shape
    for i, element in enumerate(dataset):
        if np.array(element).shape[0] != expected_shape[0]:
            raise ValueError(
                f"Received a {kind} of NumPy arrays with different lengths. Mismatch found at "
                f"index {i}, Expected shape={expected_shape} Received "
                f"shape={np.array(element).shape}.Please provide a {kind} of NumPy arrays with "
                "the same length."
            )


def _iterator(dataset: Any, kind: Any) -> Any:
    from torchestimator import data  # lazy: heavy (torchestimator.data.dataset, 84 ms)

    if kind is list or kind is tuple:
        _check_arrays(dataset, kind.__name__)
        return iter(zip(*dataset))
    if kind is data.Dataset:
        if _is_batched(dataset):
            dataset = dataset.unbatch()
        return iter_on_host(dataset)
    return iter(dataset)


def _samples(dataset: Any, kind: Any) -> list:
    """Keras's `_convert_dataset_to_list`: the samples, checking they share one shape."""
    iterator = _iterator(dataset, kind)
    try:
        first = next(iterator)
    except StopIteration:
        raise ValueError(
            "Received an empty Dataset. `dataset` must be a non-empty list/tuple of "
            "`numpy.ndarray` objects or `tf.data.Dataset` objects."
        ) from None
    check_shape = isinstance(first, (torch.Tensor, np.ndarray))
    first_shape = np.asarray(first).shape if check_shape else None
    samples = [first]
    start, warn = time.time(), True
    for i, sample in enumerate(iterator):
        if check_shape and first_shape != np.asarray(sample).shape:
            raise ValueError(
                f"All `dataset` samples must have same shape, Expected shape: {first_shape} "
                f"Received shape: {np.asarray(sample).shape} at index {i}."
            )
        if warn and i % 10 == 0 and int(time.time() - start) > 10:
            warnings.warn(
                "The dataset is taking longer than 10 seconds to iterate over. This may be "
                "due to the size of the dataset. Keep in mind that the `split_dataset` "
                "utility is only for small in-memory dataset (e.g. < 10,000 samples).",
                category=ResourceWarning, stacklevel=3,
            )
            warn = False
        samples.append(sample)
    if kind is list or kind is tuple:
        converted = []
        for sample in samples:
            try:
                converted.append(np.array(sample))
            except ValueError:
                converted.append(np.array(sample, dtype=object))
        return converted
    return samples


def _stack(column: tuple) -> Any:
    if isinstance(column[0], torch.Tensor):
        return torch.stack(list(column))
    return np.array(column)


def _restore(samples: list, kind: Any, original: Any) -> Any:
    """Keras's `_restore_dataset_from_list`: the columns of the split's samples."""
    from torchestimator import data  # lazy: heavy (torchestimator.data.dataset, 84 ms)

    if kind is list or kind is tuple:
        return tuple(np.array(column) for column in zip(*samples))
    if kind is data.Dataset:
        if isinstance(original.element_spec, dict):
            restored: dict = {}
            for sample in samples:
                for key, value in sample.items():
                    restored.setdefault(key, []).append(value)
            return {k: _stack(tuple(v)) for k, v in restored.items()}
        if isinstance(samples[0], tuple):
            return tuple(_stack(column) for column in zip(*samples))
        return _stack(tuple(samples))
    return samples


def _rescale_sizes(left_size: Any, right_size: Any, total_length: int) -> tuple[int, int]:
    """Keras's `_rescale_dataset_split_sizes`: the integer sizes of the two splits."""
    left_type, right_type = type(left_size), type(right_size)
    if (left_size is not None and left_type not in (int, float)) and (
            right_size is not None and right_type not in (int, float)):
        raise TypeError(
            "Invalid `left_size` and `right_size` Types. Expected: integer or float or None, "
            f"Received: type(left_size)={left_type} and type(right_size)={right_type}"
        )
    if left_size is not None and left_type not in (int, float):
        raise TypeError(
            "Invalid `left_size` Type. Expected: int or float or None, "
            f"Received: type(left_size)={left_type}.  "
        )
    if right_size is not None and right_type not in (int, float):
        raise TypeError(
            "Invalid `right_size` Type. Expected: int or float or None,"
            f"Received: type(right_size)={right_type}."
        )
    if left_size == 0 and right_size == 0:
        raise ValueError(
            "Both `left_size` and `right_size` are zero. At least one of the split sizes must "
            "be non-zero."
        )
    if (left_type is int and (left_size <= 0 or left_size >= total_length)
            or left_type is float and (left_size <= 0 or left_size >= 1)):
        raise ValueError(
            f"`left_size` should be either a positive integer smaller than {total_length}, or "
            f"a float within the range `[0, 1]`. Received: left_size={left_size}"
        )
    if (right_type is int and (right_size <= 0 or right_size >= total_length)
            or right_type is float and (right_size <= 0 or right_size >= 1)):
        raise ValueError(
            f"`right_size` should be either a positive integer and smaller than {total_length} "
            f"or a float within the range `[0, 1]`. Received: right_size={right_size}"
        )
    if right_type is float and left_type is float and right_size + left_size > 1:
        raise ValueError(
            "The sum of `left_size` and `right_size` is greater than 1. It must be less than "
            "or equal to 1."
        )
    if left_type is float:
        left_size = round(left_size * total_length)
    elif left_type is int:
        left_size = float(left_size)
    if right_type is float:
        right_size = round(right_size * total_length)
    elif right_type is int:
        right_size = float(right_size)
    if left_size is None:
        left_size = total_length - right_size
    elif right_size is None:
        right_size = total_length - left_size
    if left_size + right_size > total_length:
        raise ValueError(
            "The sum of `left_size` and `right_size` should be smaller than the "
            "{total_length}. Received: left_size + right_size = "
            f"{left_size + right_size}and total_length = {total_length}"
        )
    for split, side in ((left_size, "left"), (right_size, "right")):
        if split == 0:
            raise ValueError(
                f"With `dataset` of length={total_length}, `left_size`={left_size} and "
                f"`right_size`={right_size}.Resulting {side} side dataset split will be "
                "empty. Adjust any of the aforementioned parameters"
            )
    return int(left_size), int(right_size)


def split_dataset(dataset: Any, left_size: Any = None, right_size: Any = None,
                  shuffle: bool = False, seed: int | None = None) -> tuple[Any, Any]:
    """Split a dataset into a left half and a right half (e.g. train / test).

    Args:
        dataset: A `tf.data.Dataset` object, or a list/tuple of arrays with the same length.
        left_size: If float (in the range `[0, 1]`), it signifies the fraction of the data
            to pack in the left dataset. If integer, it signifies the number of samples to
            pack in the left dataset. If `None`, it uses the complement to `right_size`.
        right_size: If float (in the range `[0, 1]`), it signifies the fraction of the data
            to pack in the right dataset. If integer, it signifies the number of samples to
            pack in the right dataset. If `None`, it uses the complement to `left_size`.
        shuffle: Boolean, whether to shuffle the data before splitting it.
        seed: A random seed for shuffling.

    Returns:
        A tuple of two `tf.data.Dataset` objects: the left and right splits (batched with
        the input's batch size when the input is a batched Dataset).

    Fractions are rounded (`round(fraction * n)`); the right split is the last
    `right_size` samples, so with both sizes given some samples may be in neither.
    """
    from torchestimator import data  # lazy: heavy (torchestimator.data.dataset, 84 ms)

    kind = _type_spec(dataset)
    if kind not in (data.Dataset, list, tuple, np.ndarray):
        raise TypeError(
            "The `dataset` argument must be either a `tf.data.Dataset` object or a "
            f"list/tuple of arrays. Received: dataset={dataset} of type {type(dataset)}"
        )
    if right_size is None and left_size is None:
        raise ValueError(
            "At least one of the `left_size` or `right_size` must be specified. Received: "
            "left_size=None and right_size=None"
        )
    samples = _samples(dataset, kind)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    total_length = len(samples)
    left_size, right_size = _rescale_sizes(left_size, right_size, total_length)
    left = data.Dataset.from_tensor_slices(_restore(samples[:left_size], kind, dataset))
    right = data.Dataset.from_tensor_slices(_restore(samples[-right_size:], kind, dataset))
    if kind is data.Dataset and _is_batched(dataset):
        batch_size = int(dataset._batch_size)
        left = left.batch(batch_size)
        right = right.batch(batch_size)
    return left.prefetch(data.AUTOTUNE), right.prefetch(data.AUTOTUNE)
