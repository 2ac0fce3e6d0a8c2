"""File sources: glob matching, `list_files`, compressed inputs, and `FileDataset`.

`FileDataset` is the base of every reader (CSV, Parquet, text lines): a list
of files, each read by a function that yields column blocks. It shuffles the
file order per pass when asked, reads several files at once on threads
(`num_parallel_reads`, blocks interleaved as they come), and splits itself
for distributed workers: by file when it has at least as many files as
shards, otherwise by row within each file.

File names and patterns may be URLs (`s3://bucket/data/*.csv`, `gs://...`,
`memory://...`): they are matched and opened through fsspec (`tf.io.gfile`'s
filesystems); local paths and `file://` URLs use the local filesystem directly.
"""

from __future__ import annotations

import copy
import glob
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from torchestimator._dtypes import TensorSpec, string
from torchestimator._engine import storage
from torchestimator._engine.gfile_streams import open_binary  # the data readers import it from here
from torchestimator.data._interleave import interleave_blocks
from torchestimator.data.background import default_parallelism
from torchestimator.data.columns import Block
from torchestimator.data.constants import AUTOTUNE, UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset
from torchestimator.data.seeding import PassCounter
from torchestimator.data.shuffling import draw_seed
from torchestimator.data.slicing import stride_runs
from torchestimator.data.streams import BlockStream

COMPRESSION_TYPES = ("", "GZIP", "ZLIB")


class NoMatchingFilesError(FileNotFoundError, ValueError):
    """No file matched a file pattern (a FileNotFoundError and a ValueError)."""


def match_files(file_pattern: Any, what: str = "file_pattern") -> list[str]:
    """The sorted files matching a glob pattern or list of patterns; error naming a pattern
    that matches nothing."""
    if isinstance(file_pattern, (str, bytes, os.PathLike)):
        patterns = [file_pattern]
    elif isinstance(file_pattern, (list, tuple, np.ndarray)):
        patterns = list(np.asarray(file_pattern, dtype=object).reshape(-1))
    else:
        raise TypeError(
            f"`{what}` must be a file path, a glob pattern or a list of them; received "
            f"{file_pattern!r}"
        )
    if not patterns:
        raise ValueError(f"`{what}` is an empty list; give at least one file or pattern")
    found: list[str] = []
    for p in patterns:
        p = os.fsdecode(p) if isinstance(p, bytes) else os.fspath(p)
        if "://" in p:
            p = p[len("file://"):] if p.startswith("file://") else p
        if "://" in p:
            matches = _match_url(p, what)
        elif glob.has_magic(p):
            matches = [m for m in glob.glob(p) if os.path.isfile(m)]
        elif os.path.isdir(p):
            raise IsADirectoryError(f"`{what}` names a directory, not a file: {p!r}; "
                                    "use a pattern such as 'dir/*.csv'")
        else:
            matches = [p] if os.path.exists(p) else []
        if not matches:
            raise NoMatchingFilesError(f"No files matched pattern {p!r} (given as `{what}`)")
        found.extend(matches)
    return sorted(dict.fromkeys(found))


def _match_url(pattern: str, what: str) -> list[str]:
    """The files (not folders) of a store that `pattern` (a URL, maybe a glob) names."""
    from torchestimator._engine.gfile import _split, _url  # lazy: heavy (fsspec, 330 ms)

    fs, path, prefix = _split(pattern)
    try:
        fs.invalidate_cache()
    except Exception:  # not every filesystem caches listings
        pass
    if glob.has_magic(pattern):
        infos = fs.glob(path, detail=True)
        return [_url(prefix, name) for name, info in infos.items() if info.get("type") != "directory"]
    if storage.isdir(pattern):
        raise IsADirectoryError(f"`{what}` names a directory, not a file: {pattern!r}; "
                                "use a pattern such as 'dir/*.csv'")
    return [pattern] if fs.exists(path) else []


def _is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def check_compression(compression_type: Any) -> str:
    """Normalizes TF's compression_type (None, '', 'GZIP', 'ZLIB'); error otherwise."""
    value = "" if compression_type is None else compression_type
    if not isinstance(value, str) or value.upper() not in COMPRESSION_TYPES:
        raise ValueError(
            f"`compression_type` must be one of '', 'GZIP', 'ZLIB' (or None); received "
            f"{compression_type!r}"
        )
    return value.upper()


def arrow_input(path: str, compression_type: str) -> Any:
    """What pyarrow readers take for `path`: the path itself, or a (decompressing) stream."""
    if compression_type == "" and _is_url(path):
        return pa.PythonFile(open_binary(path, ""), mode="r")
    if compression_type == "":
        return path
    if compression_type == "GZIP":
        return open_binary(path, "GZIP")
    return pa.PythonFile(open_binary(path, compression_type), mode="r")


class FileListDataset(Dataset):
    """File names matching a pattern, shuffled per pass unless told not to (`list_files`)."""

    def __init__(self, file_pattern: Any, shuffle: bool, seed: int | None,
                 files: list[str] | None = None):
        super().__init__()
        self._files = match_files(file_pattern) if files is None else files
        self._shuffle = shuffle
        self._seed = draw_seed() if seed is None else seed
        self._epochs = PassCounter()

    @property
    def files(self) -> list[str]:
        """The matched files, sorted."""
        return list(self._files)

    @property
    def num_files(self) -> int:
        """How many files the pattern matched."""
        return len(self._files)

    def files_in_order(self) -> list[str]:
        """This pass's file order (a new shuffle per pass when shuffling)."""
        if not self._shuffle:
            return list(self._files)
        rng = np.random.default_rng([self._seed, self._epochs.next()])
        return [self._files[i] for i in rng.permutation(len(self._files))]

    def _pass_state(self) -> list[int]:
        """[seed, number of the next pass]: what replays a pass (an iterator's `save()`)."""
        return [self._seed, self._epochs.value]

    def _set_pass_state(self, state: list[int]) -> None:
        self._seed, self._epochs.value = state[0], state[1]

    def sharded(self, num_shards: int, index: int) -> FileListDataset:
        """The files of shard `index` (every `num_shards`-th file of the sorted list)."""
        new = copy.copy(self)
        new._files = self._files[index::num_shards]
        return new

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return self.sharded(num_shards, index) if self.num_files >= num_shards else None

    def _open(self):
        names = np.empty(len(self._files), dtype=object)
        names[:] = self.files_in_order()
        return BlockStream(iter([Block([names], len(names))] if len(names) else []))

    def _compute_spec(self):
        return TensorSpec((), string)

    def _compute_cardinality(self) -> int:
        return len(self._files)


def resolve_filenames(filenames: Any) -> FileListDataset:
    """The files named by a reader's `filenames`: a path, glob, list, or dataset of names."""
    if isinstance(filenames, FileListDataset):
        return filenames
    if isinstance(filenames, Dataset):
        names = [str(n) for n in filenames.as_numpy_iterator()]
        files = match_files(names, "filenames") if names else []
    else:
        files = match_files(filenames, "filenames")
    return FileListDataset(None, shuffle=False, seed=0, files=files)


class FileDataset(Dataset):
    """Rows read from files, each file by `read_file(path) -> Iterator[Block]`.

    `files` is a list of paths or a `FileListDataset` (its shuffling is kept).
    """

    def __init__(self, files: Any, read_file: Callable[[str], Iterator[Block]], spec: Any, *,
                 num_parallel_reads: int | None = None, deterministic: bool | None = None):
        super().__init__()
        if isinstance(files, FileListDataset):
            self._files = files
        else:
            self._files = FileListDataset(None, shuffle=False, seed=0, files=list(files))
        self._read_file = read_file
        self._spec = spec
        if num_parallel_reads is None:
            num_parallel_reads = 1
        elif num_parallel_reads == AUTOTUNE:
            num_parallel_reads = default_parallelism()
        self._num_parallel_reads = num_parallel_reads
        self._deterministic = deterministic
        self._row_shard: tuple[int, int] | None = None

    @property
    def files(self) -> list[str]:
        """The files this dataset reads (in sorted order)."""
        return self._files.files

    def _read(self, path: str) -> Iterator[Block]:
        blocks = (b for b in self._read_file(path) if b.n)
        if self._row_shard is not None:
            n, i = self._row_shard
            return stride_runs(blocks, n, i)
        return blocks

    def _open(self):
        files = self._files.files_in_order()
        if self._num_parallel_reads <= 1 or len(files) <= 1:
            return BlockStream(b for f in files for b in self._read(f))
        deterministic = (self.options().is_deterministic() if self._deterministic is None
                         else self._deterministic)
        return BlockStream(interleave_blocks(
            iter(files), self._read, self._num_parallel_reads, None, True, deterministic
        ))

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        new = copy.copy(self)
        if self._files.num_files >= num_shards:
            new._files = self._files.sharded(num_shards, index)
        else:
            new._row_shard = (num_shards, index)
        return new

    def _compute_spec(self):
        return self._spec

    def _compute_cardinality(self) -> int:
        return UNKNOWN_CARDINALITY
