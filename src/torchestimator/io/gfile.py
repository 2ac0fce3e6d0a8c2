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
same objects.
"""

from torchestimator._engine.gfile import FileStatistics as FileStatistics
from torchestimator._engine.gfile import (
    GFile,
    Open,
    atomic_write_bytes,
    copy,
    exists,
    get_registered_schemes,
    glob,
    isdir,
    join,
    listdir,
    makedirs,
    mkdir,
    remove,
    rename,
    rmtree,
    stat,
    walk,
)
from torchestimator._engine.gfile import _split as _split  # estimator.py resolves URLs with it

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
