"""Keras 2.15's `image_dataset_from_directory` and `text_dataset_from_directory`
(`keras/src/utils/image_dataset.py`, `text_dataset.py`, `dataset_utils.py`).

Files are indexed, shuffled and split exactly as Keras does it: class names are the sorted
sub-directories, files are listed per class in sorted order, the whole list is shuffled with
`np.random.RandomState(seed)` and the validation subset is the last
`int(validation_split * n)` files. Images are decoded with Pillow (`tf.io.decode_image`)
and resized with `tf.image.resize` (TF's kernels, no antialiasing), giving float32
`(height, width, channels)` tensors; texts are `str`. `_audio.py` builds
`audio_dataset_from_directory` on the same helpers (`padded=True` batches).
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._ops.image_codecs import decode_image, read_file
from torchestimator._ops.image_ops import resize
from torchestimator.keras.utils._image_utils import smart_resize

__all__ = ["image_dataset_from_directory", "text_dataset_from_directory"]

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_SUPPORTED_INTERPOLATIONS = (
    "bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic",
)


def _print_msg(message: str) -> None:
    print(message)


# ---------------------------------------------------------------------------- dataset_utils
def _check_validation_split_arg(validation_split: Any, subset: Any, shuffle: bool,
                                seed: Any) -> None:
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(
            f"`validation_split` must be between 0 and 1, received: {validation_split}"
        )
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(
            '`subset` must be either "training", '
            f'"validation" or "both", received: {subset}'
        )
    if validation_split and shuffle and seed is None:
        raise ValueError(
            "If using `validation_split` and shuffling the data, you must provide a `seed` "
            "argument, to make sure that there is no overlap between the training and "
            "validation subset."
        )


def _iter_valid_files(directory: str, follow_links: bool, formats: tuple[str, ...]):
    walk = os.walk(directory, followlinks=follow_links)
    for root, _, files in sorted(walk, key=lambda x: x[0]):
        for fname in sorted(files):
            if fname.lower().endswith(formats):
                yield root, fname


def _index_subdirectory(directory: str, class_indices: dict[str, int], follow_links: bool,
                        formats: tuple[str, ...]) -> tuple[list[str], list[int]]:
    dirname = os.path.basename(directory)
    labels = []
    filenames = []
    for root, fname in _iter_valid_files(directory, follow_links, formats):
        labels.append(class_indices[dirname])
        absolute_path = os.path.join(root, fname)
        filenames.append(os.path.join(dirname, os.path.relpath(absolute_path, directory)))
    return filenames, labels


def _index_directory(directory: str, labels: Any, formats: tuple[str, ...],
                     class_names: Any = None, shuffle: bool = True, seed: Any = None,
                     follow_links: bool = False) -> tuple[list[str], Any, Any]:
    """Keras's `dataset_utils.index_directory`: (file_paths, labels, class_names)."""
    directory = os.fspath(directory)
    if labels == "inferred":
        subdirs = []
        for subdir in sorted(os.listdir(directory)):
            if os.path.isdir(os.path.join(directory, subdir)):
                if not subdir.startswith("."):
                    subdirs.append(subdir.rstrip("/"))
        if not class_names:
            class_names = subdirs
        elif set(class_names) != set(subdirs):
            raise ValueError(
                "The `class_names` passed did not match the names of the subdirectories of the "
                f"target directory. Expected: {subdirs}, but received: {list(class_names)}"
            )
    else:
        # In the explicit/no-label cases, index from the parent directory down.
        subdirs = [""]
        class_names = subdirs
    # Files are listed folder by folder in sorted order; a label is the class's position in
    # `class_names` (Keras 2.15).
    class_indices = dict(zip(class_names, range(len(class_names))))

    filenames: list[str] = []
    labels_list = []
    for dirpath in (os.path.join(directory, subdir) for subdir in subdirs):
        partial_filenames, partial_labels = _index_subdirectory(
            dirpath, class_indices, follow_links, formats
        )
        labels_list.append(partial_labels)
        filenames += partial_filenames

    if labels == "inferred":
        labels = np.zeros((len(filenames),), dtype="int32")
        i = 0
        for partial_labels in labels_list:
            labels[i:i + len(partial_labels)] = partial_labels
            i += len(partial_labels)
    elif labels is None:
        pass  # Keras 2.15 reports class_names [''] when there are no labels
    else:
        if len(labels) != len(filenames):
            raise ValueError(
                "Expected the lengths of `labels` to match the number of files in the target "
                f"directory. len(labels) is {len(labels)} while we found {len(filenames)} "
                f"files in directory {directory}."
            )
        class_names = sorted(set(labels))
        labels = np.asarray(labels)

    if labels is None:
        _print_msg(f"Found {len(filenames)} files.")
    else:
        _print_msg(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, fname) for fname in filenames]

    if shuffle:
        # Shuffle globally to erase macro-structure
        if seed is None:
            seed = np.random.randint(1e6)
        rng = np.random.RandomState(seed)
        rng.shuffle(file_paths)
        if labels is not None:
            rng = np.random.RandomState(seed)
            rng.shuffle(labels)
    return file_paths, labels, class_names


def _get_training_or_validation_split(samples: list, labels: Any, validation_split: Any,
                                      subset: Any) -> tuple[list, Any]:
    """Keras's `dataset_utils.get_training_or_validation_split`."""
    if not validation_split:
        return samples, labels
    num_val_samples = int(validation_split * len(samples))
    if subset == "training":
        _print_msg(f"Using {len(samples) - num_val_samples} files for training.")
        samples = samples[:-num_val_samples]
        if labels is not None:
            labels = labels[:-num_val_samples]
    elif subset == "validation":
        _print_msg(f"Using {num_val_samples} files for validation.")
        samples = samples[-num_val_samples:]
        if labels is not None:
            labels = labels[-num_val_samples:]
    else:
        raise ValueError(
            f'`subset` must be either "training" or "validation", received: {subset}'
        )
    return samples, labels


def _labels_to_dataset(labels: Any, label_mode: str, num_classes: int):
    from torchestimator import data  # lazy: heavy (torchestimator.data.dataset, 90 ms)

    label_ds = data.Dataset.from_tensor_slices(np.asarray(labels, dtype="int32"))
    if label_mode == "binary":
        return label_ds.map(lambda x: x.to(torch.float32).unsqueeze(-1))
    if label_mode == "categorical":
        return label_ds.map(
            lambda x: torch.nn.functional.one_hot(x.long(), num_classes).to(torch.float32)
        )
    return label_ds


def _check_labels_arg(labels: Any, class_names: Any, what: str) -> None:
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "`labels` argument should be a list/tuple of integer labels, of the same size "
                f"as the number of {what} files in the target directory. If you wish to infer "
                "the labels from the subdirectory names in the target directory, pass "
                f'`labels="inferred"`. If you wish to get a dataset that only contains {what}'
                f"{' samples' if what == 'text' else 's'} (no labels), pass `labels=None`. "
                f"Received: labels={labels}"
            )
        if class_names:
            raise ValueError(
                'You can only pass `class_names` if `labels="inferred"`. '
                f"Received: labels={labels}, and class_names={class_names}"
            )


def _check_label_mode(label_mode: Any) -> None:
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError(
            '`label_mode` argument must be one of "int", "categorical", "binary", '
            f"or None. Received: label_mode={label_mode}"
        )


def _finish(dataset: Any, batch_size: Any, shuffle: bool, seed: Any, training: bool,
            padded: bool = False) -> Any:
    """Shuffles (training) and batches the samples; `padded` batches with `padded_batch`
    (zeros up to the batch's longest sample, as audio)."""
    from torchestimator import data  # lazy: heavy (torchestimator.data.dataset, 90 ms)

    dataset = dataset.prefetch(data.AUTOTUNE)
    if batch_size is not None:
        if shuffle and training:
            # Shuffle locally at each iteration
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        dataset = dataset.padded_batch(batch_size) if padded else dataset.batch(batch_size)
    elif shuffle and training:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset


def _paths_and_labels_to_dataset(load: Callable[[str], Any], label_mode: Any,
                                 num_classes: int) -> Callable[[list, Any], Any]:
    """Keras's `paths_and_labels_to_dataset` for one kind of file: returns a function of
    `(paths, labels)` giving the Dataset of `load(path)` for each path, zipped with the labels'
    Dataset when `label_mode` is set."""

    def paths_and_labels_to_dataset(paths: list, path_labels: Any) -> Any:
        from torchestimator import data  # lazy: heavy (torchestimator.data.dataset, 90 ms)

        files = data.Dataset.from_tensor_slices(np.asarray(paths, dtype=object)).map(
            load, num_parallel_calls=data.AUTOTUNE)
        if label_mode:
            files = data.Dataset.zip(
                (files, _labels_to_dataset(path_labels, label_mode, num_classes)))
        return files

    return paths_and_labels_to_dataset


def _build(paths_and_labels_to_dataset: Any, paths: list, labels: Any, subset: Any,
           validation_split: Any, batch_size: Any, shuffle: bool, seed: Any,
           class_names: Any, directory: Any, what: str, allowed: str,
           file_paths: bool, padded: bool = False) -> Any:
    if subset == "both":
        paths_train, labels_train = _get_training_or_validation_split(
            paths, labels, validation_split, "training"
        )
        paths_val, labels_val = _get_training_or_validation_split(
            paths, labels, validation_split, "validation"
        )
        if not paths_train:
            raise ValueError(f"No training {what} found in directory {directory}. {allowed}")
        if not paths_val:
            raise ValueError(f"No validation {what} found in directory {directory}. {allowed}")
        train = _finish(paths_and_labels_to_dataset(paths_train, labels_train),
                        batch_size, shuffle, seed, True, padded)
        val = _finish(paths_and_labels_to_dataset(paths_val, labels_val),
                      batch_size, shuffle, seed, False, padded)
        train.class_names = class_names
        val.class_names = class_names
        if file_paths:
            train.file_paths = paths_train
            val.file_paths = paths_val
        return [train, val]
    paths, labels = _get_training_or_validation_split(paths, labels, validation_split, subset)
    if not paths:
        raise ValueError(f"No {what} found in directory {directory}. {allowed}")
    dataset = _finish(paths_and_labels_to_dataset(paths, labels), batch_size, shuffle, seed,
                      True, padded)
    dataset.class_names = class_names
    if file_paths:
        dataset.file_paths = paths
    return dataset


# ---------------------------------------------------------------------------- images
def _load_image(path: str, image_size: tuple[int, int], num_channels: int, interpolation: str,
                crop_to_aspect_ratio: bool) -> torch.Tensor:
    """Keras's `image_dataset.load_image`: read, decode (first frame), resize."""
    img = decode_image(read_file(path), channels=num_channels, expand_animations=False)
    if crop_to_aspect_ratio:
        return smart_resize(img, image_size, interpolation=interpolation)
    return resize(img, image_size, method=interpolation)


def image_dataset_from_directory(directory: Any, labels: Any = "inferred",
                                 label_mode: Any = "int", class_names: Any = None,
                                 color_mode: str = "rgb", batch_size: Any = 32,
                                 image_size: Any = (256, 256), shuffle: bool = True,
                                 seed: Any = None, validation_split: Any = None,
                                 subset: Any = None, interpolation: str = "bilinear",
                                 follow_links: bool = False, crop_to_aspect_ratio: bool = False,
                                 **kwargs: Any) -> Any:
    """Generates a `tf.data.Dataset` from image files in a directory.

    If your directory structure is `main_directory/class_a/a_image_1.jpg`,
    `main_directory/class_b/b_image_1.jpg`, ..., then calling
    `image_dataset_from_directory(main_directory, labels='inferred')` will return a
    `tf.data.Dataset` that yields batches of images from the subdirectories `class_a` and
    `class_b`, together with labels 0 and 1 (0 corresponding to `class_a` and 1
    corresponding to `class_b`). Supported image formats: `.jpeg`, `.jpg`, `.png`, `.bmp`,
    `.gif`. Animated gifs are truncated to the first frame.

    Args:
        directory: Directory where the data is located. If `labels` is `"inferred"`, it
            should contain subdirectories, each containing images for a class. Otherwise,
            the directory structure is ignored.
        labels: `"inferred"` (labels are generated from the directory structure), `None`
            (no labels), or a list/tuple of integer labels of the same size as the number
            of image files found in the directory, sorted according to the alphanumeric
            order of the image file paths.
        label_mode: `"int"` (labels encoded as integers), `"categorical"` (a categorical
            vector), `"binary"` (float32 scalars 0 or 1, exactly 2 classes) or `None` (no
            labels).
        class_names: Only valid if `labels` is `"inferred"`: the explicit list of class
            names (must match names of subdirectories), controlling the order of the
            classes (otherwise alphanumerical order is used).
        color_mode: One of `"grayscale"`, `"rgb"`, `"rgba"`: whether the images will be
            converted to have 1, 3, or 4 channels.
        batch_size: Size of the batches of data. Defaults to 32. If `None`, the data will
            not be batched (the dataset will yield individual samples).
        image_size: Size to resize images to after they are read from disk, specified as
            `(height, width)`. Defaults to `(256, 256)`.
        shuffle: Whether to shuffle the data. If set to `False`, sorts the data in
            alphanumeric order.
        seed: Optional random seed for shuffling and transformations.
        validation_split: Optional float between 0 and 1, fraction of data to reserve for
            validation.
        subset: Subset of the data to return. One of `"training"`, `"validation"`, or
            `"both"`. Only used if `validation_split` is set. With `"both"`, returns a
            list of two datasets (training and validation).
        interpolation: The interpolation method used when resizing images: `bilinear`,
            `nearest`, `bicubic`, `area`, `lanczos3`, `lanczos5`, `gaussian`,
            `mitchellcubic`.
        follow_links: Whether to visit subdirectories pointed to by symlinks.
        crop_to_aspect_ratio: If True, resize the images without aspect ratio distortion:
            the largest possible window in the image (of size `image_size`) that matches
            the target aspect ratio is cropped, then resized.
        **kwargs: Legacy keyword arguments (`smart_resize`, the old name of
            `crop_to_aspect_ratio`).

    Returns:
        A `tf.data.Dataset` object, with `class_names` and `file_paths` attributes. With
        `label_mode=None` it yields float32 tensors of shape `(batch_size, image_size[0],
        image_size[1], num_channels)`; otherwise tuples `(images, labels)`, where `labels`
        has shape `(batch_size,)` (int32), `(batch_size, 1)` (float32, binary) or
        `(batch_size, num_classes)` (float32, categorical).
    """
    if "smart_resize" in kwargs:
        crop_to_aspect_ratio = kwargs.pop("smart_resize")
    if kwargs:
        raise TypeError(f"Unknown keywords argument(s): {tuple(kwargs.keys())}")
    _check_labels_arg(labels, class_names, "image")
    _check_label_mode(label_mode)
    if labels is None or label_mode is None:
        labels = None
        label_mode = None
    if color_mode == "rgb":
        num_channels = 3
    elif color_mode == "rgba":
        num_channels = 4
    elif color_mode == "grayscale":
        num_channels = 1
    else:
        raise ValueError(
            '`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
            f"Received: color_mode={color_mode}"
        )
    interpolation = interpolation.lower()
    if interpolation not in _SUPPORTED_INTERPOLATIONS:
        raise ValueError(
            f"Argument `interpolation` should be one of {_SUPPORTED_INTERPOLATIONS}. "
            f"Received: interpolation={interpolation}"
        )
    _check_validation_split_arg(validation_split, subset, shuffle, seed)

    if seed is None:
        seed = np.random.randint(1e6)
    image_paths, labels, class_names = _index_directory(
        directory, labels, formats=ALLOWLIST_FORMATS, class_names=class_names,
        shuffle=shuffle, seed=seed, follow_links=follow_links,
    )
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(
            'When passing `label_mode="binary"`, there must be exactly 2 '
            f"class_names. Received: class_names={class_names}"
        )
    image_size = (int(image_size[0]), int(image_size[1]))
    num_classes = len(class_names) if class_names else 0

    paths_and_labels_to_dataset = _paths_and_labels_to_dataset(
        lambda path: _load_image(path, image_size, num_channels, interpolation,
                                 crop_to_aspect_ratio),
        label_mode, num_classes)
    return _build(paths_and_labels_to_dataset, image_paths, labels, subset, validation_split,
                  batch_size, shuffle, seed, class_names, directory, "images",
                  f"Allowed formats: {ALLOWLIST_FORMATS}", file_paths=True)


# ---------------------------------------------------------------------------- texts
def _path_to_string_content(path: str, max_length: Any) -> str:
    raw = read_file(path)
    if max_length is not None:
        raw = raw[:max_length]
    # Truncation counts bytes, as TF's substr; a character cut in two is dropped.
    return codecs.getincrementaldecoder("utf-8")(errors="replace").decode(raw, final=False)


def text_dataset_from_directory(directory: Any, labels: Any = "inferred",
                                label_mode: Any = "int", class_names: Any = None,
                                batch_size: Any = 32, max_length: Any = None,
                                shuffle: bool = True, seed: Any = None,
                                validation_split: Any = None, subset: Any = None,
                                follow_links: bool = False) -> Any:
    """Generates a `tf.data.Dataset` from text files in a directory.

    If your directory structure is `main_directory/class_a/a_text_1.txt`,
    `main_directory/class_b/b_text_1.txt`, ..., then calling
    `text_dataset_from_directory(main_directory, labels='inferred')` will return a
    `tf.data.Dataset` that yields batches of texts from the subdirectories `class_a` and
    `class_b`, together with labels 0 and 1. Only `.txt` files are supported at this time.

    Args:
        directory: Directory where the data is located. If `labels` is `"inferred"`, it
            should contain subdirectories, each containing text files for a class.
            Otherwise, the directory structure is ignored.
        labels: `"inferred"`, `None` (no labels), or a list/tuple of integer labels of the
            same size as the number of text files found in the directory.
        label_mode: `"int"`, `"categorical"`, `"binary"` or `None` (no labels).
        class_names: Only valid if `labels` is `"inferred"`: the explicit list of class
            names (must match names of subdirectories).
        batch_size: Size of the batches of data. Defaults to 32. If `None`, the data will
            not be batched.
        max_length: Maximum size of a text string. Texts longer than this will be
            truncated to `max_length` (bytes, as TF).
        shuffle: Whether to shuffle the data. If set to `False`, sorts the data in
            alphanumeric order.
        seed: Optional random seed for shuffling and transformations.
        validation_split: Optional float between 0 and 1, fraction of data to reserve for
            validation.
        subset: `"training"`, `"validation"` or `"both"` (a list of two datasets). Only used
            if `validation_split` is set.
        follow_links: Whether to visit subdirectories pointed to by symlinks.

    Returns:
        A `tf.data.Dataset` object with a `class_names` attribute, yielding string arrays of
        shape `(batch_size,)` (the package's `str` arrays), or tuples `(texts, labels)`.
    """
    _check_labels_arg(labels, class_names, "text")
    _check_label_mode(label_mode)
    if labels is None or label_mode is None:
        labels = None
        label_mode = None
    _check_validation_split_arg(validation_split, subset, shuffle, seed)

    if seed is None:
        seed = np.random.randint(1e6)
    file_paths, labels, class_names = _index_directory(
        directory, labels, formats=(".txt",), class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links,
    )
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(
            'When passing `label_mode="binary"`, there must be exactly 2 '
            f"class_names. Received: class_names={class_names}"
        )
    num_classes = len(class_names) if class_names else 0

    paths_and_labels_to_dataset = _paths_and_labels_to_dataset(
        lambda path: _path_to_string_content(path, max_length), label_mode, num_classes)
    return _build(paths_and_labels_to_dataset, file_paths, labels, subset, validation_split,
                  batch_size, shuffle, seed, class_names, directory, "text files",
                  "Allowed format: .txt", file_paths=False)
