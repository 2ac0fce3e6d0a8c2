"""Keras 2.15's `audio_dataset_from_directory` (`keras/utils/audio_dataset.py`), on the
directory loader of `_dataset_from_directory` (class discovery, seeded shuffle and split,
label modes) with `tf.audio.decode_wav` (16-bit PCM through the stdlib `wave` module).

Refused, with errors saying so: `sampling_rate` (Keras resamples with TensorFlow I/O's
`tfio.audio.resample`, which has no equivalent here) and `ragged=True` (torchestimator has
no `tf.RaggedTensor`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.image_codecs import read_file
from torchestimator.audio._wav import decode_wav
from torchestimator.keras.utils._dataset_from_directory import (
    _build,
    _check_label_mode,
    _check_validation_split_arg,
    _index_directory,
    _paths_and_labels_to_dataset,
)

__all__ = ["audio_dataset_from_directory"]

ALLOWED_FORMATS = (".wav",)


def _check_labels(labels: Any, class_names: Any) -> None:
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "The `labels` argument should be a list/tuple of integer labels, of the same "
                "size as the number of audio files in the target directory. If you wish to "
                "infer the labels from the subdirectory names in the target directory, pass "
                '`labels="inferred"`. If you wish to get a dataset that only contains audio '
                f"samples (no labels), pass `labels=None`. Received: labels={labels}"
            )
        if class_names:
            raise ValueError(
                'You can only pass `class_names` if `labels="inferred"`. '
                f"Received: labels={labels}, and class_names={class_names}"
            )


def _read_and_decode_audio(path: str, output_sequence_length: Any) -> torch.Tensor:
    """Keras's `read_and_decode_audio`: the file's samples, float32 `(samples, channels)`,
    cropped or zero-padded to `output_sequence_length` when set."""
    desired = -1 if output_sequence_length is None else output_sequence_length
    audio, _ = decode_wav(read_file(path), desired_samples=desired)
    return audio


def audio_dataset_from_directory(directory: Any, labels: Any = "inferred",
                                 label_mode: Any = "int", class_names: Any = None,
                                 batch_size: Any = 32, sampling_rate: Any = None,
                                 output_sequence_length: Any = None, ragged: bool = False,
                                 shuffle: bool = True, seed: Any = None,
                                 validation_split: Any = None, subset: Any = None,
                                 follow_links: bool = False) -> Any:
    """Generates a `tf.data.Dataset` from audio files in a directory.

    If your directory structure is `main_directory/class_a/a_audio_1.wav`,
    `main_directory/class_b/b_audio_1.wav`, ..., then calling
    `audio_dataset_from_directory(main_directory, labels='inferred')` will return a
    `tf.data.Dataset` that yields batches of audio files from the subdirectories `class_a`
    and `class_b`, together with labels 0 and 1. Only `.wav` files (16-bit PCM) are
    supported.

    Args:
        directory: Directory where the data is located. If `labels` is `"inferred"`, it
            should contain subdirectories, each containing audio files for a class.
            Otherwise, the directory structure is ignored.
        labels: `"inferred"` (labels are generated from the directory structure), `None` (no
            labels), or a list/tuple of integer labels of the same size as the number of
            audio files found in the directory, sorted according to the alphanumeric order
            of the audio file paths.
        label_mode: `"int"` (integers), `"categorical"` (a one-hot vector), `"binary"`
            (float32 0 or 1, exactly 2 classes) or `None` (no labels).
        class_names: Only valid if `labels` is `"inferred"`: the explicit list of class
            names (must match names of subdirectories), controlling their order.
        batch_size: Size of the batches of data. Default: 32. If `None`, the data will not
            be batched (the dataset will yield individual samples).
        sampling_rate: Audio sampling rate (in samples per second). Not supported here
            (Keras resamples with TensorFlow I/O): must be `None`, the files' own rate.
        output_sequence_length: Maximum length of an audio sequence. Audio files longer
            than this will be truncated to `output_sequence_length` (shorter ones are padded
            with zeros). If set to `None`, then all sequences in the same batch will be
            padded to the length of the longest sequence in the batch.
        ragged: Whether to return a Ragged dataset. Not supported (no RaggedTensor): must be
            `False`.
        shuffle: Whether to shuffle the data. If set to `False`, sorts the data in
            alphanumeric order.
        seed: Optional random seed for shuffling and transformations.
        validation_split: Optional float between 0 and 1, fraction of data to reserve for
            validation.
        subset: `"training"`, `"validation"` or `"both"` (a tuple of two datasets). Only
            used if `validation_split` is set.
        follow_links: Whether to visits subdirectories pointed to by symlinks.

    Returns:
        A `tf.data.Dataset` object with a `class_names` attribute. With `label_mode=None` it
        yields float32 audio tensors of shape `(batch_size, sequence_length, num_channels)`;
        otherwise tuples `(audio, labels)`, where `labels` is int32 `(batch_size,)`,
        float32 `(batch_size, 1)` (binary) or float32 `(batch_size, num_classes)`
        (categorical).
    """
    _check_labels(labels, class_names)
    _check_label_mode(label_mode)
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if ragged:
        raise NotImplementedError(
            "audio_dataset_from_directory(ragged=True): torchestimator has no tf.RaggedTensor. "
            "Use ragged=False (each batch is zero-padded to its longest sample), set "
            "`output_sequence_length` (every sample cropped or padded to that length), or "
            "batch_size=None (each sample keeps its own length)."
        )
    if sampling_rate is not None:
        if not isinstance(sampling_rate, int):
            raise ValueError(
                "`sampling_rate` should have an integer value. "
                f"Received: sampling_rate={sampling_rate}"
            )
        if sampling_rate <= 0:
            raise ValueError(
                f"`sampling_rate` should be higher than 0. Received: sampling_rate={sampling_rate}"
            )
        raise NotImplementedError(
            f"audio_dataset_from_directory(sampling_rate={sampling_rate}): Keras resamples with "
            "TensorFlow I/O's `tfio.audio.resample`, which torchestimator does not have. "
            "Resample the files beforehand, or pass sampling_rate=None to keep each file's "
            "own rate."
        )
    if labels is None or label_mode is None:
        labels = None
        label_mode = None
    _check_validation_split_arg(validation_split, subset, shuffle, seed)

    if seed is None:
        seed = np.random.randint(1e6)
    file_paths, labels, class_names = _index_directory(
        directory, labels, formats=ALLOWED_FORMATS, class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links,
    )
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(
            'When passing `label_mode="binary"`, there must be exactly 2 '
            f"class_names. Received: class_names={class_names}"
        )
    num_classes = len(class_names) if class_names else 0
    paths_and_labels_to_dataset = _paths_and_labels_to_dataset(
        lambda path: _read_and_decode_audio(path, output_sequence_length), label_mode,
        num_classes)
    result = _build(paths_and_labels_to_dataset, file_paths, labels, subset, validation_split,
                    batch_size, shuffle, seed, class_names, directory, "audio files",
                    f"Allowed format(s): {ALLOWED_FORMATS}", file_paths=False,
                    padded=output_sequence_length is None)
    return tuple(result) if isinstance(result, list) else result
