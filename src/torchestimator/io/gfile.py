"""`tf.io.gfile`: file I/O on local paths and URLs (`s3://`, `gs://`, `hdfs://`, `memory://`,
`file://`, ...) through `fsspec`.

Local paths and `file://` URLs use the local filesystem; any other scheme uses the
fsspec filesystem of that protocol (install its package: `s3fs` for `s3://`, `gcsfs`
for `gs://`, `pyarrow` for `hdfs://`). Errors are TF's: a missing path raises
`tf.errors.NotFoundError`, an existing destination `tf.errors.AlreadyExistsError`,
each naming the path.

Object stores have no directories and no atomic rename: `makedirs` there is a
no-op when the store has none, `rename` is copy-then-delete, and
`atomic_write_bytes` writes the object in one request (readers see the old object
or the new one, never a part).

The implementation is `torchestimator._engine.gfile` (the storage layer, which the
checkpoint and file-reading code below `io` use too); this module re-exports the
same objects, except `copy` and `rename`, which take TF's argument names (`src`, `dst`).
"""

from typing import Any

from torchestimator._engine.gfile import FileStatistics as FileStatistics
from torchestimator._engine.gfile import (
    GFile,
    Open,
    atomic_write_bytes,
    exists,
    get_registered_schemes,
    glob,
    isdir,
    join,
    listdir,
    makedirs,
    mkdir,
    remove,
    rmtree,
    stat,
    walk,
)
from torchestimator._engine.gfile import _split as _split  # estimator.py resolves URLs with it
from torchestimator._engine.gfile import copy as _copy
from torchestimator._engine.gfile import rename as _rename


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies the file `src` to `dst` (across filesystems too). AlreadyExistsError if `dst`
    exists and `overwrite` is False; NotFoundError if `src` does not exist."""
    _copy(src, dst, overwrite)


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Renames (moves) the file or directory `src` to `dst`. AlreadyExistsError if `dst` exists
    and `overwrite` is False. Atomic on a local filesystem; copy-then-delete on object stores."""
    _rename(src, dst, overwrite)

__all__ = [
    "GFile",
    "Open",
    "atomic_write_bytes",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]
