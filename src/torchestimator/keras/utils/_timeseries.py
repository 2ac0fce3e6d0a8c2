"""Keras 2.15's `timeseries_dataset_from_array` (`keras/utils/timeseries_dataset.py`).

The windows, their order and the alignment of targets are Keras's: window `i` starts at
`start_index + p_i` where `p = arange(0, num_seqs, sequence_stride)` (shuffled with
`np.random.RandomState(seed)` when `shuffle`), takes every `sampling_rate`-th step for
`sequence_length` steps, and its target is `targets[start_index + p_i]`. The data is kept
once in memory: the pipeline carries start positions and gathers each batch's windows in
one indexing operation (after the shuffle buffer, which therefore shuffles windows exactly
as Keras's element-wise shuffle would, with this package's shuffle buffer order).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

__all__ = ["timeseries_dataset_from_array"]


def _as_tensor(array: Any, name: str) -> torch.Tensor:
    """`array` as a tensor of its own dtype (a numpy array is not copied when possible)."""
    if isinstance(array, torch.Tensor):
        return array
    value = np.asarray(array)
    if value.dtype == object or value.dtype.kind in "USO":
        raise TypeError(
            f"`{name}` must hold numbers to be windowed by timeseries_dataset_from_array; "
            f"received an array of dtype {value.dtype}. Encode strings as integers first."
        )
    return torch.from_numpy(np.ascontiguousarray(value))


def _check_indices(data_len: int, start_index: Any, end_index: Any, sampling_rate: int,
                   sequence_stride: int) -> None:
    if start_index:
        if start_index < 0:
            raise ValueError(
                f"`start_index` must be 0 or greater. Received: start_index={start_index}"
            )
        if start_index >= data_len:
            raise ValueError(
                "`start_index` must be lower than the length of the data. Received: "
                f"start_index={start_index}, for data of length {data_len}"
            )
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(
                "`end_index` must be higher than `start_index`. Received: "
                f"start_index={start_index}, and end_index={end_index} "
            )
        if end_index >= data_len:
            raise ValueError(
                "`end_index` must be lower than the length of the data. Received: "
                f"end_index={end_index}, for data of length {data_len}"
            )
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    if sampling_rate <= 0:
        raise ValueError(
            f"`sampling_rate` must be higher than 0. Received: sampling_rate={sampling_rate}"
        )
    if sampling_rate >= data_len:
        raise ValueError(
            "`sampling_rate` must be lower than the length of the data. Received: "
            f"sampling_rate={sampling_rate}, for data of length {data_len}"
        )
    if sequence_stride <= 0:
        raise ValueError(
            f"`sequence_stride` must be higher than 0. Received: sequence_stride={sequence_stride}"
        )
    if sequence_stride >= data_len:
        raise ValueError(
            "`sequence_stride` must be lower than the length of the data. Received: "
            f"sequence_stride={sequence_stride}, for data of length {data_len}"
        )


def timeseries_dataset_from_array(data: Any, targets: Any, sequence_length: int,
                                  sequence_stride: int = 1, sampling_rate: int = 1,
                                  batch_size: int | None = 128, shuffle: bool = False,
                                  seed: int | None = None, start_index: int | None = None,
                                  end_index: int | None = None) -> Any:
    """Creates a dataset of sliding windows over a timeseries provided as array.

    This function takes in a sequence of data-points gathered at equal intervals, along
    with time series parameters such as length of the sequences/windows, spacing between
    two sequence/windows, etc., to produce batches of timeseries inputs and targets.

    Args:
        data: Numpy array or tensor containing consecutive data points (timesteps). Axis 0
            is expected to be the time dimension.
        targets: Targets corresponding to timesteps in `data`. `targets[i]` should be the
            target corresponding to the window that starts at index `i`. Pass `None` if
            you don't have target data (the dataset then yields only the input data).
        sequence_length: Length of the output sequences (in number of timesteps).
        sequence_stride: Period between successive output sequences. For stride `s`,
            output samples would start at index `data[i]`, `data[i + s]`, ...
        sampling_rate: Period between successive individual timesteps within sequences.
            For rate `r`, timesteps `data[i], data[i + r], ... data[i + sequence_length]`
            are used for creating a sample sequence.
        batch_size: Number of timeseries samples in each batch (except maybe the last
            one). If `None`, the data will not be batched. Defaults to 128.
        shuffle: Whether to shuffle output samples, or instead draw them in chronological
            order.
        seed: Optional int; random seed for shuffling.
        start_index: Optional int; data points earlier (exclusive) than `start_index` will
            not be used in the output sequences.
        end_index: Optional int; data points later (exclusive) than `end_index` will not be
            used in the output sequences.

    Returns:
        A `tf.data.Dataset` instance. If `targets` was passed, the dataset yields tuples
        `(batch_of_sequences, batch_of_targets)`; otherwise only `batch_of_sequences`.
        Sequences have shape `(batch_size, sequence_length, *data.shape[1:])` and the
        data's dtype.

    Note: with `shuffle=True` the start positions are permuted exactly as Keras does
    (`np.random.RandomState(seed)`); the extra `Dataset.shuffle(seed=seed)` buffer Keras
    adds uses this package's generator, so the final order is seeded and reproducible
    but not TensorFlow's.
    """
    from torchestimator import data as tf_data  # lazy: heavy (torchestimator.data.dataset, 116 ms)

    data_len = len(data)
    _check_indices(data_len, start_index, end_index, sampling_rate, sequence_stride)
    if start_index is None:
        start_index = 0
    if end_index is None:
        end_index = data_len

    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    start_positions = np.arange(0, num_seqs, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        rng = np.random.RandomState(seed)
        rng.shuffle(start_positions)

    values = _as_tensor(data, "data")[start_index:end_index]
    offsets = torch.arange(0, int(sequence_length) * int(sampling_rate), int(sampling_rate))
    target_values = None if targets is None else _as_tensor(targets, "targets")[
        start_index:end_index]

    def gather(positions: torch.Tensor) -> Any:
        # positions: () for one window, (batch,) for a batch of windows
        p = positions.long()
        windows = values[p.unsqueeze(-1) + offsets]
        if target_values is None:
            return windows
        return windows, target_values[p]

    dataset = tf_data.Dataset.from_tensor_slices(start_positions)
    dataset = dataset.prefetch(tf_data.AUTOTUNE)
    if batch_size is not None:
        if shuffle:
            # Shuffle locally at each iteration
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        dataset = dataset.batch(batch_size)
    elif shuffle:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset.map(gather)
