"""Keras 2.15's image iterators: `Iterator` (a `keras.utils.Sequence` of batches over an index,
shuffled and seeded with NumPy's global generator as Keras does), `NumpyArrayIterator`,
`DirectoryIterator` and `DataFrameIterator`. `fit` reads them as Sequences."""

from __future__ import annotations

import collections
import os
import threading
import warnings
from typing import Any

import numpy as np

from torchestimator.keras import backend
from torchestimator.keras._io_utils import print_msg
from torchestimator.keras.utils._data_utils import Sequence
from torchestimator.keras.utils._image_utils import array_to_img, img_to_array, load_img

WHITE_LIST_FORMATS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")


class Iterator(Sequence):
    """Base class for image data iterators: a `keras.utils.Sequence` of `ceil(n / batch_size)`
    batches. Every `Iterator` must implement `_get_batches_of_transformed_samples`.

    Args:
        n: Integer, total number of samples in the dataset to loop over.
        batch_size: Integer, size of a batch.
        shuffle: Boolean, whether to shuffle the data between epochs.
        seed: Random seeding for data shuffling (NumPy's global generator is re-seeded with
            `seed + total_batches_seen` before each batch, as in Keras).
    """

    white_list_formats = WHITE_LIST_FORMATS

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed: int | None) -> None:
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array: np.ndarray | None = None
        self.index_generator = self._flow_index()

    def _set_index_array(self) -> None:
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)

    def __getitem__(self, idx: int) -> Any:
        """Returns batch `idx` (of the current epoch's order)."""
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length "
                             f"{len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        index_array = self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)]
        return self._get_batches_of_transformed_samples(index_array)

    def __len__(self) -> int:
        """Number of batches: `ceil(n / batch_size)`."""
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self) -> None:
        """Re-draws the sample order (when shuffling)."""
        self._set_index_array()

    def reset(self) -> None:
        """Restarts the `next()` stream at batch 0."""
        self.batch_index = 0

    def _flow_index(self) -> Any:
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current_index = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            if self.n > current_index + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current_index:current_index + self.batch_size]

    def __iter__(self) -> Iterator:
        """The iterator itself: `next()` loops over the data forever."""
        return self

    def __next__(self) -> Any:
        return self.next()

    def next(self) -> Any:
        """Returns the next batch (looping over the data indefinitely)."""
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        """Gets a batch of transformed samples for the sample indices `index_array`."""
        raise NotImplementedError

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("lock", None)
        state.pop("index_generator", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()
        self.index_generator = self._flow_index()


def _save_batch(batch_x: np.ndarray, index_array: np.ndarray, data_format: str, save_to_dir: str,
                save_prefix: str, save_format: str, high: int) -> None:
    for i, j in enumerate(index_array):
        img = array_to_img(batch_x[i], data_format, scale=True)
        fname = f"{save_prefix}_{j}_{np.random.randint(high)}.{save_format}"
        img.save(os.path.join(save_to_dir, fname))


class NumpyArrayIterator(Iterator):
    """Iterator yielding data from a Numpy array: batches `x`, `(x, y)` or `(x, y, w)`, each
    image passed through the generator's `get_random_transform`, `apply_transform` and
    `standardize`. `x` may be `(images, other_array_or_list)`: the other arrays are returned
    unchanged next to the images."""

    def __init__(self, x: Any, y: Any, image_data_generator: Any, batch_size: int = 32,
                 shuffle: bool = False, sample_weight: Any = None, seed: int | None = None,
                 data_format: str | None = None, save_to_dir: str | None = None,
                 save_prefix: str = "", save_format: str = "png", subset: str | None = None,
                 ignore_class_split: bool = False, dtype: Any = None) -> None:
        data_format = data_format or _image_data_format()
        self.dtype = dtype or _floatx()
        if isinstance(x, (tuple, list)):
            x_misc = ([np.asarray(x[1])] if not isinstance(x[1], list)
                      else [np.asarray(xx) for xx in x[1]])
            x = x[0]
            for xx in x_misc:
                if len(x) != len(xx):
                    raise ValueError("All of the arrays in `x` should have the same length. "
                                     f"Found a pair with: len(x[0]) = {len(x)}, "
                                     f"len(x[?]) = {len(xx)}")
        else:
            x_misc = []
        if y is not None and len(x) != len(y):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same length. "
                             f"Found: x.shape = {np.asarray(x).shape}, "
                             f"y.shape = {np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same "
                             f"length. Found: x.shape = {np.asarray(x).shape}, "
                             f"sample_weight.shape = {np.asarray(sample_weight).shape}")
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError(f"Invalid subset name: {subset!r}; expected \"training\" or "
                                 "\"validation\".")
            split_idx = int(len(x) * image_data_generator._validation_split)
            if (y is not None and not ignore_class_split
                    and not np.array_equal(np.unique(y[:split_idx]), np.unique(y[split_idx:]))):
                raise ValueError("Training and validation subsets have different number of "
                                 "classes after the split. If your numpy arrays are sorted by "
                                 "the label, you might want to shuffle them.")
            part = slice(None, split_idx) if subset == "validation" else slice(split_idx, None)
            x = x[part]
            x_misc = [np.asarray(xx[part]) for xx in x_misc]
            if y is not None:
                y = y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError("Input data in `NumpyArrayIterator` should have rank 4. You passed "
                             f"an array with shape {self.x.shape}")
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn(
                f'NumpyArrayIterator is set to use the data format convention "{data_format}" '
                f"(channels on axis {channels_axis}), i.e. expected either 1, 3, or 4 channels "
                f"on axis {channels_axis}. However, it was passed an array with shape "
                f"{self.x.shape} ({self.x.shape[channels_axis]} channels).", stacklevel=2)
        self.y = np.asarray(y) if y is not None else None
        self.sample_weight = np.asarray(sample_weight) if sample_weight is not None else None
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        gen = self.image_data_generator
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = gen.get_random_transform(x.shape)
            x = gen.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = gen.standardize(x)
        if self.save_to_dir:
            _save_batch(batch_x, index_array, self.data_format, self.save_to_dir,
                        self.save_prefix, self.save_format, 10_000)
        miscs = [xx[index_array] for xx in self.x_misc]
        output: tuple = (batch_x if not miscs else [batch_x] + miscs,)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


def _image_data_format() -> str:
    return backend.image_data_format()


def _floatx() -> str:
    return backend.floatx()


class BatchFromFilesMixin:
    """Loads, transforms and batches image files (shared by `DirectoryIterator` and
    `DataFrameIterator`)."""

    def set_processing_attrs(self, image_data_generator: Any, target_size: Any, color_mode: str,
                             data_format: str, save_to_dir: str | None, save_prefix: str,
                             save_format: str, subset: str | None, interpolation: str,
                             keep_aspect_ratio: bool) -> None:
        """Sets the attributes that turn files into image batches."""
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        channels = {"rgba": 4, "rgb": 3, "grayscale": 1}
        if color_mode not in channels:
            raise ValueError(f"Invalid color mode: {color_mode!r}; expected \"rgb\", \"rgba\", "
                             "or \"grayscale\".")
        self.color_mode = color_mode
        self.data_format = data_format
        c = channels[color_mode]
        self.image_shape = (self.target_size + (c,) if data_format == "channels_last"
                            else (c,) + self.target_size)
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        if subset is not None:
            validation_split = image_data_generator._validation_split
            if subset == "validation":
                split: Any = (0, validation_split)
            elif subset == "training":
                split = (validation_split, 1)
            else:
                raise ValueError(f"Invalid subset name: {subset};expected \"training\" or "
                                 "\"validation\"")
        else:
            split = None
        self.split = split
        self.subset = subset

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        filepaths = self.filepaths
        gen = self.image_data_generator
        for i, j in enumerate(index_array):
            img = load_img(filepaths[j], color_mode=self.color_mode, target_size=self.target_size,
                           interpolation=self.interpolation,
                           keep_aspect_ratio=self.keep_aspect_ratio)
            x = img_to_array(img, data_format=self.data_format)
            if hasattr(img, "close"):
                img.close()
            if gen:
                params = gen.get_random_transform(x.shape)
                x = gen.apply_transform(x, params)
                x = gen.standardize(x)
            batch_x[i] = x
        if self.save_to_dir:
            _save_batch(batch_x, index_array, self.data_format, self.save_to_dir,
                        self.save_prefix, self.save_format, 10_000_000)
        if self.class_mode == "input":
            batch_y: Any = batch_x.copy()
        elif self.class_mode in {"binary", "sparse"}:
            batch_y = np.empty(len(batch_x), dtype=self.dtype)
            for i, k in enumerate(index_array):
                batch_y[i] = self.classes[k]
        elif self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            for i, k in enumerate(index_array):
                batch_y[i, self.classes[k]] = 1.0
        elif self.class_mode == "multi_output":
            batch_y = [output[index_array] for output in self.labels]
        elif self.class_mode == "raw":
            batch_y = self.labels[index_array]
        else:
            return batch_x
        if self.sample_weight is None:
            return batch_x, batch_y
        return batch_x, batch_y, self.sample_weight[index_array]


def _iter_valid_files(directory: str, formats: tuple, follow_links: bool) -> Any:
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda t: t[0]):
        for fname in sorted(files):
            if fname.lower().endswith(".tiff"):
                warnings.warn('Using ".tiff" files with multiple bands will cause distortion. '
                              "Please verify your output.", stacklevel=2)
            if fname.lower().endswith(formats):
                yield root, fname


def _list_valid_filenames_in_directory(directory: str, formats: tuple, split: Any,
                                       class_indices: dict, follow_links: bool
                                       ) -> tuple[list[int], list[str]]:
    """The class indices and the `class/relative/path` filenames of one class folder (only the
    `split` fraction of its sorted files when `split` is given)."""
    dirname = os.path.basename(directory)
    valid: Any = list(_iter_valid_files(directory, formats, follow_links))
    if split:
        start, stop = int(split[0] * len(valid)), int(split[1] * len(valid))
        valid = valid[start:stop]
    classes, filenames = [], []
    for root, fname in valid:
        classes.append(class_indices[dirname])
        filenames.append(os.path.join(dirname,
                                      os.path.relpath(os.path.join(root, fname), directory)))
    return classes, filenames


class DirectoryIterator(BatchFromFilesMixin, Iterator):
    """Iterator capable of reading images from a directory on disk: one subdirectory per class
    (sorted alphanumerically unless `classes` is given). `.classes` holds each file's class
    index, `.class_indices` the class-name-to-index mapping, `.filenames` the paths relative to
    `directory` and `.samples` the number of images."""

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory: str, image_data_generator: Any, target_size: Any = (256, 256),
                 color_mode: str = "rgb", classes: Any = None, class_mode: str | None =
                 "categorical", batch_size: int = 32, shuffle: bool = True,
                 seed: int | None = None, data_format: str | None = None,
                 save_to_dir: str | None = None, save_prefix: str = "", save_format: str = "png",
                 follow_links: bool = False, subset: str | None = None,
                 interpolation: str = "nearest", keep_aspect_ratio: bool = False,
                 dtype: Any = None) -> None:
        data_format = data_format or _image_data_format()
        self.dtype = dtype or _floatx()
        directory = os.fspath(directory)
        self.set_processing_attrs(image_data_generator, target_size, color_mode, data_format,
                                  save_to_dir, save_prefix, save_format, subset, interpolation,
                                  keep_aspect_ratio)
        self.directory = directory
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of: "
                             f"{self.allowed_class_modes}")
        self.class_mode = class_mode
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"flow_from_directory: directory {directory!r} does not "
                                    "exist or is not a directory; pass the folder that holds "
                                    "one subfolder per class.")
        if not classes:
            classes = [d for d in sorted(os.listdir(directory))
                       if os.path.isdir(os.path.join(directory, d))]
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        self.filenames: list[str] = []
        class_lists = []
        for subdir in classes:
            cls, names = _list_valid_filenames_in_directory(
                os.path.join(directory, subdir), self.white_list_formats, self.split,
                self.class_indices, follow_links)
            class_lists.extend(cls)
            self.filenames += names
        self.samples = len(self.filenames)
        self.classes = np.asarray(class_lists, dtype="int32").reshape(self.samples)
        print_msg(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self) -> list[str]:
        """The absolute paths of the images, in index order."""
        return self._filepaths

    @property
    def labels(self) -> np.ndarray:
        """The class index of every image."""
        return self.classes

    @property
    def sample_weight(self) -> None:
        """None: a directory gives no sample weights."""
        return None


def validate_filename(filename: str, white_list_formats: tuple) -> bool:
    """Whether `filename` has an allowed image extension and is a file."""
    return filename.lower().endswith(white_list_formats) and os.path.isfile(filename)


class DataFrameIterator(BatchFromFilesMixin, Iterator):
    """Iterator capable of reading images from a directory through a pandas dataframe:
    `x_col` holds the file names (relative to `directory`, or absolute when `directory` is
    None), `y_col` the targets (`class_mode` one of "binary", "categorical", "input",
    "multi_output", "raw", "sparse" or None) and `weight_col` optional sample weights."""

    allowed_class_modes = {"binary", "categorical", "input", "multi_output", "raw", "sparse",
                           None}

    def __init__(self, dataframe: Any, directory: str | None = None,
                 image_data_generator: Any = None, x_col: str = "filename", y_col: Any = "class",
                 weight_col: str | None = None, target_size: Any = (256, 256),
                 color_mode: str = "rgb", classes: Any = None,
                 class_mode: str | None = "categorical", batch_size: int = 32,
                 shuffle: bool = True, seed: int | None = None, data_format: str = "channels_last",
                 save_to_dir: str | None = None, save_prefix: str = "", save_format: str = "png",
                 subset: str | None = None, interpolation: str = "nearest",
                 keep_aspect_ratio: bool = False, dtype: Any = "float32",
                 validate_filenames: bool = True) -> None:
        self.set_processing_attrs(image_data_generator, target_size, color_mode, data_format,
                                  save_to_dir, save_prefix, save_format, subset, interpolation,
                                  keep_aspect_ratio)
        df = dataframe.copy()
        self.directory = os.fspath(directory) if directory else ""
        self.class_mode = class_mode
        self.dtype = dtype
        self._check_params(df, x_col, y_col, weight_col, classes)
        if validate_filenames:
            df = self._filter_valid_filepaths(df, x_col)
        labelled = class_mode not in ["input", "multi_output", "raw", None]
        if labelled:
            df, classes = self._filter_classes(df, y_col, classes)
            num_classes = len(classes)
            self.class_indices = dict(zip(classes, range(len(classes))))
        if self.split:
            start, stop = int(self.split[0] * len(df)), int(self.split[1] * len(df))
            df = df.iloc[start:stop, :]
        if labelled:
            self.classes = self.get_classes(df, y_col)
        self.filenames = df[x_col].tolist()
        self._sample_weight = df[weight_col].values if weight_col else None
        if class_mode == "multi_output":
            self._targets = [np.array(df[col].tolist()) for col in y_col]
        if class_mode == "raw":
            self._targets = df[y_col].values
        self.samples = len(self.filenames)
        validated = "validated" if validate_filenames else "non-validated"
        if labelled:
            print_msg(f"Found {self.samples} {validated} image filenames belonging to "
                      f"{num_classes} classes.")
        else:
            print_msg(f"Found {self.samples} {validated} image filenames.")
        self._filepaths = [os.path.join(self.directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _check_params(self, df: Any, x_col: str, y_col: Any, weight_col: Any,
                      classes: Any) -> None:
        if self.class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {self.class_mode}; expected one of: "
                             f"{self.allowed_class_modes}")
        if self.class_mode == "multi_output" and not isinstance(y_col, list):
            raise TypeError(f'If class_mode="{self.class_mode}", y_col must be a list. '
                            f"Received {type(y_col).__name__}.")
        if not all(isinstance(v, str) for v in df[x_col]):
            raise TypeError(f"All values in column x_col={x_col} must be strings.")
        if self.class_mode in {"binary", "sparse"}:
            if not all(isinstance(v, str) for v in df[y_col]):
                raise TypeError(f'If class_mode="{self.class_mode}", y_col="{y_col}" column '
                                "values must be strings.")
        if self.class_mode == "binary":
            if classes:
                if len(set(classes)) != 2:
                    raise ValueError('If class_mode="binary" there must be 2 classes. '
                                     f"{len(set(classes))} class/es were given.")
            elif df[y_col].nunique() != 2:
                raise ValueError('If class_mode="binary" there must be 2 classes. '
                                 f"Found {df[y_col].nunique()} classes.")
        if self.class_mode == "categorical":
            if not all(isinstance(v, (str, list, tuple)) for v in df[y_col]):
                raise TypeError(f'If class_mode="{self.class_mode}", y_col="{y_col}" column '
                                "values must be type string, list or tuple.")
        if classes and self.class_mode in {"input", "multi_output", "raw", None}:
            warnings.warn(f'`classes` will be ignored given the class_mode="{self.class_mode}"',
                          stacklevel=2)
        if weight_col and not issubclass(df[weight_col].dtype.type, np.number):
            raise TypeError(f"Column weight_col={weight_col} must be numeric.")

    def get_classes(self, df: Any, y_col: str) -> list:
        """The class index (or list of indices) of every row."""
        return [[self.class_indices[v] for v in label] if isinstance(label, (list, tuple))
                else self.class_indices[label] for label in df[y_col]]

    @staticmethod
    def _filter_classes(df: Any, y_col: str, classes: Any) -> tuple[Any, list]:
        df = df.copy()

        def remove_classes(labels: Any, keep: list) -> Any:
            if isinstance(labels, (list, tuple)):
                return [c for c in labels if c in keep] or None
            if isinstance(labels, str):
                return labels if labels in keep else None
            raise TypeError(f"Expect string, list or tuple but found {type(labels)} in {y_col} "
                            "column ")

        if classes:
            classes = list(collections.OrderedDict.fromkeys(classes).keys())
            df[y_col] = df[y_col].apply(lambda v: remove_classes(v, classes))
        else:
            found: set = set()
            for v in df[y_col]:
                found.update(v) if isinstance(v, (list, tuple)) else found.add(v)
            classes = sorted(found)
        return df.dropna(subset=[y_col]), classes

    def _filter_valid_filepaths(self, df: Any, x_col: str) -> Any:
        mask = np.array([validate_filename(os.path.join(self.directory, f),
                                           self.white_list_formats) for f in df[x_col]],
                        dtype=bool)
        n_invalid = int((~mask).sum())
        if n_invalid:
            warnings.warn(f'Found {n_invalid} invalid image filename(s) in x_col="{x_col}". '
                          "These filename(s) will be ignored.", stacklevel=2)
        return df[mask]

    @property
    def filepaths(self) -> list[str]:
        """The paths of the images, in index order."""
        return self._filepaths

    @property
    def labels(self) -> Any:
        """The targets (`raw`/`multi_output`) or class indices of every image."""
        if self.class_mode in {"multi_output", "raw"}:
            return self._targets
        return self.classes

    @property
    def sample_weight(self) -> Any:
        """The `weight_col` values, or None."""
        return self._sample_weight
