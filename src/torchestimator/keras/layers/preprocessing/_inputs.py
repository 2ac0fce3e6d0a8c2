"""Turning what users pass to preprocessing layers (numpy arrays, torch tensors, lists,
pandas objects, tf.data-like iterables of batches) into arrays, and back into tensors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._engine.loop import iter_on_host, to_device
from torchestimator.keras.engine.call_context import nested_call_device


def to_numpy(value: Any, layer: str) -> np.ndarray:
    """Returns `value` as a numpy array (tensors are moved to the CPU; strings stay str)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "to_numpy"):  # pandas Series/DataFrame, pyarrow arrays
        return np.asarray(value.to_numpy())
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{layer} expects an array-like input (numpy array, tensor or list); received a value "
            f"of type {type(value).__name__}: {err}"
        ) from None


def device_of(value: Any) -> torch.device:
    """Where a layer's outputs made from `value` go: a tensor input's device; for host data
    (strings, numpy) the device of the model being called around the layer, if on an
    accelerator (`call_context.nested_call_device`), else the CPU."""
    if isinstance(value, torch.Tensor):
        return value.device
    return nested_call_device() or _CPU


_CPU = torch.device("cpu")


def host_ids_to(ids: np.ndarray | torch.Tensor, device: torch.device) -> torch.Tensor:
    """Ids a layer made on the host, on `device` as the training loop moves a batch there
    (`loop.to_device`: to a GPU from pinned memory without blocking, the host ids kept as the
    copy's twin for an `Embedding`'s range check); on the host, as they are. A plain copy from
    pageable memory would block the host until the GPU caught up, in every step."""
    if isinstance(ids, np.ndarray):
        ids = torch.from_numpy(np.ascontiguousarray(ids))
    return ids if ids.device == device else to_device(ids, device)


def iter_batches(data: Any, layer: str, batch_size: int | None = None, steps: int | None = None) -> Iterator[Any]:
    """Yields the batches `adapt()` learns from.

    An array-like (numpy array, tensor, list, pandas object) is one batch, or
    chunks of `batch_size` rows; any other iterable (a `tf.data.Dataset`, a
    generator, a DataLoader) yields its elements as batches, at most `steps`
    of them. Raises TypeError for a batch that is a tuple or dict (features
    with labels): map the dataset to the features first.
    """
    if isinstance(data, (np.ndarray, torch.Tensor, list)) or hasattr(data, "to_numpy"):
        if isinstance(data, list) and data and isinstance(data[0], (np.ndarray, torch.Tensor)) and (
            len({tuple(np.shape(d)) for d in data}) > 1
        ):
            yield from _checked(iter(data), layer, steps)
            return
        array = data if isinstance(data, torch.Tensor) else to_numpy(data, layer)
        if batch_size is None or len(array) <= batch_size:
            yield array
            return
        count = 0
        for start in range(0, len(array), int(batch_size)):
            if steps is not None and count >= steps:
                return
            yield array[start:start + int(batch_size)]
            count += 1
        return
    if isinstance(data, (str, bytes)) or not hasattr(data, "__iter__"):
        raise TypeError(
            f"{layer}.adapt() expects a numpy array, a tensor, a list or an iterable of batches "
            f"(e.g. a tf.data.Dataset); received {type(data).__name__}."
        )
    yield from _checked(iter_on_host(data), layer, steps)


def _checked(batches: Iterator[Any], layer: str, steps: int | None) -> Iterator[Any]:
    for i, batch in enumerate(batches):
        if steps is not None and i >= steps:
            return
        if isinstance(batch, (tuple, dict)):
            raise TypeError(
                f"{layer}.adapt() expects each batch to be an array of the layer's inputs; "
                f"received a {type(batch).__name__} (features with labels?). Map the dataset to "
                "the features first, e.g. `dataset.map(lambda x, y: x)`."
            )
        yield batch
