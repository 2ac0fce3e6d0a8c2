"""`tf.io.gfile`'s implementation: file I/O on local paths and URLs (`s3://`, `gs://`,
`hdfs://`, `memory://`, `file://`, ...) through `fsspec`.

It lives at the storage layer so that `_engine.storage` and the file-reading ops of
`_ops` use it without importing `io`; `torchestimator.io.gfile` (`tf.io.gfile`)
re-exports these same objects.

Local paths and `file://` URLs use the local filesystem; any other scheme uses the
fsspec filesystem of that protocol (install its package: `s3fs` for `s3://`, `gcsfs`
for `gs://`, `pyarrow` for `hdfs://`). Errors are TF's: a missing path raises
`tf.errors.NotFoundError`, an existing destination `tf.errors.AlreadyExistsError`,
each naming the path.

Object stores have no directories and no atomic rename: `makedirs` there is a
no-op when the store has none, `rename` is copy-then-delete, and
`atomic_write_bytes` writes the object in one request (readers see the old object
or the new one, never a part).
"""

from __future__ import annotations

import io
import os
import posixpath
import uuid
from collections.abc import Iterator
from typing import Any, NamedTuple

import fsspec
from fsspec.implementations.local import LocalFileSystem
from fsspec.registry import known_implementations

from torchestimator import errors

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


def _split(path: Any) -> tuple[Any, str, str]:
    """(filesystem, path as that filesystem names it, the URL prefix to put back) of `path`."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode()
    if not isinstance(path, str) or not path:
        raise errors.InvalidArgumentError(None, None, f"A file path must be a non-empty string; received {path!r}.")
    protocol, sep, rest = path.partition("://")
    if not sep or protocol == "file":
        local = rest if sep else path
        return fsspec.filesystem("file"), local, ""
    try:
        fs = fsspec.filesystem(protocol)
    except (ImportError, ValueError) as e:
        raise errors.UnimplementedError(
            None, None, f"File system scheme '{protocol}://' of {path!r} is not available: {e}. Install the "
            f"fsspec package for it (s3fs for s3://, gcsfs for gs://, pyarrow for hdfs://).") from None
    return fs, fs._strip_protocol(path), f"{protocol}://"


def _is_local(fs: Any) -> bool:
    return isinstance(fs, LocalFileSystem)


def _url(prefix: str, path: str) -> str:
    if not prefix:
        return path
    return prefix + path.lstrip("/")


def _not_found(path: Any, what: str = "") -> errors.NotFoundError:
    return errors.NotFoundError(None, None, f"{path}; No such file or directory{what}")


class FileStatistics(NamedTuple):
    """`tf.io.gfile.stat`'s result: `length` (bytes), `mtime_nsec`, `is_directory`."""

    length: int
    mtime_nsec: int
    is_directory: bool


def exists(path: Any) -> bool:
    """Determines whether a path exists or not (a file or a directory)."""
    fs, p, _ = _split(path)
    return bool(fs.exists(p))


def isdir(path: Any) -> bool:
    """Returns whether the path is a directory or not."""
    fs, p, _ = _split(path)
    return bool(fs.isdir(p))


def stat(path: Any) -> FileStatistics:
    """Returns file statistics for a given path; NotFoundError if it does not exist."""
    fs, p, _ = _split(path)
    try:
        info = fs.info(p)
    except FileNotFoundError:
        raise _not_found(path) from None
    mtime = info.get("mtime") or info.get("LastModified") or info.get("created") or 0
    if hasattr(mtime, "timestamp"):
        mtime = mtime.timestamp()
    return FileStatistics(int(info.get("size") or 0), int(float(mtime) * 1e9), info.get("type") == "directory")


def glob(pattern: Any) -> list[str]:
    """Returns a list of files that match the given pattern(s), as full paths/URLs."""
    if isinstance(pattern, (list, tuple)):
        return [m for p in pattern for m in glob(p)]
    fs, p, prefix = _split(pattern)
    return sorted(_url(prefix, m) for m in fs.glob(p))


def listdir(path: Any) -> list[str]:
    """Returns the names of the entries of directory `path` (no `.`/`..`, no path prefix).

    Raises NotFoundError when the directory does not exist."""
    fs, p, _ = _split(path)
    if not fs.isdir(p):
        raise _not_found(path, " (not a directory)" if fs.exists(p) else "")
    names = []
    for entry in fs.ls(p, detail=False):
        name = posixpath.basename(str(entry).rstrip("/"))
        if name and name not in (".", ".."):
            names.append(name)
    return sorted(set(names))


def makedirs(path: Any) -> None:
    """Creates a directory and all parent/intermediate directories (no error if it exists)."""
    fs, p, _ = _split(path)
    if fs.isfile(p):
        raise errors.AlreadyExistsError(None, None, f"{path} exists and is a file, not a directory")
    fs.makedirs(p, exist_ok=True)


def mkdir(path: Any) -> None:
    """Creates a directory; its parent must exist (NotFoundError otherwise), and it must not
    (AlreadyExistsError)."""
    fs, p, _ = _split(path)
    if fs.exists(p):
        raise errors.AlreadyExistsError(None, None, f"{path}; File exists")
    parent = posixpath.dirname(p.rstrip("/"))
    if parent and parent != p and not fs.isdir(parent) and _is_local(fs):
        raise _not_found(parent)
    fs.makedirs(p, exist_ok=True)


def remove(path: Any) -> None:
    """Deletes the file `path`; NotFoundError if it does not exist."""
    fs, p, _ = _split(path)
    if not fs.exists(p):
        raise _not_found(path)
    if fs.isdir(p):
        raise errors.FailedPreconditionError(None, None, f"{path} is a directory; use rmtree to delete it")
    fs.rm_file(p)


def rmtree(path: Any) -> None:
    """Deletes everything under `path` recursively; NotFoundError if it does not exist."""
    fs, p, _ = _split(path)
    if not fs.exists(p):
        raise _not_found(path)
    fs.rm(p, recursive=True)


def copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    """Copies a file to a new location (across filesystems too). AlreadyExistsError if `newpath`
    exists and `overwrite` is False; NotFoundError if `oldpath` does not exist."""
    src_fs, src, _ = _split(oldpath)
    dst_fs, dst, _ = _split(newpath)
    if not src_fs.exists(src):
        raise _not_found(oldpath)
    if not overwrite and dst_fs.exists(dst):
        raise errors.AlreadyExistsError(None, None, f"{newpath}; File exists (pass overwrite=True to replace it)")
    with src_fs.open(src, "rb") as f:
        data = f.read()
    _write_whole(dst_fs, dst, data)


def rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    """Renames (moves) a file or directory. AlreadyExistsError if `newname` exists and
    `overwrite` is False. Atomic on a local filesystem; copy-then-delete on object stores."""
    src_fs, src, _ = _split(oldname)
    dst_fs, dst, _ = _split(newname)
    if not src_fs.exists(src):
        raise _not_found(oldname)
    if not overwrite and dst_fs.exists(dst):
        raise errors.AlreadyExistsError(None, None, f"{newname}; File exists (pass overwrite=True to replace it)")
    if _is_local(src_fs) and _is_local(dst_fs):
        os.replace(src, dst)
        return
    if type(src_fs) is type(dst_fs):
        src_fs.mv(src, dst, recursive=src_fs.isdir(src))
        return
    copy(oldname, newname, overwrite=True)
    src_fs.rm(src, recursive=True)


def walk(top: Any, topdown: bool = True, onerror: Any = None) -> Iterator[tuple[str, list[str], list[str]]]:
    """Recursive directory tree generator: `(dirname, subdirectories, files)` for each directory
    under `top`, parents first with `topdown=True`."""
    try:
        names = listdir(top)
    except errors.NotFoundError as e:
        if onerror is not None:
            onerror(e)
        return
    top = os.fspath(top)
    subdirs = [n for n in names if isdir(join(top, n))]
    files = [n for n in names if n not in subdirs]
    if topdown:
        yield top, subdirs, files
    for name in subdirs:
        yield from walk(join(top, name), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def join(path: Any, *paths: Any) -> str:
    """Joins path components with '/' (URLs keep their scheme), as `tf.io.gfile.join`."""
    path = os.fspath(path)
    if "://" in path:
        out = path
        for p in paths:
            p = os.fspath(p)
            out = p if "://" in p else (out.rstrip("/") + "/" + p.lstrip("/") if out else p)
        return out
    return os.path.join(path, *(os.fspath(p) for p in paths))


def get_registered_schemes() -> list[str]:
    """The URL schemes fsspec knows (their package may still need installing)."""

    return sorted(known_implementations)


def _write_whole(fs: Any, path: str, data: bytes) -> None:
    parent = posixpath.dirname(path.rstrip("/"))
    if parent and _is_local(fs):
        os.makedirs(parent, exist_ok=True)
    with fs.open(path, "wb") as f:
        f.write(data)


def atomic_write_bytes(path: Any, data: bytes) -> None:
    """Writes `data` to `path` so that readers see the old content or the new, never a part:
    a temporary file renamed over `path` locally, one PUT on an object store."""
    fs, p, _ = _split(path)
    if _is_local(fs):
        parent = os.path.dirname(p) or "."
        os.makedirs(parent, exist_ok=True)
        tmp = os.path.join(parent, f".{os.path.basename(p)}.tmp-{uuid.uuid4().hex}")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, p)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        return
    with fs.open(p, "wb") as f:
        f.write(data)


class GFile:
    """File I/O wrappers without thread locking (`tf.io.gfile.GFile`), on local paths and URLs.

    `mode` is 'r', 'rb', 'w', 'wb', 'a' or 'ab'; text modes read and write `str`
    (UTF-8), binary modes `bytes`. Opening for reading is lazy, as TF: a missing
    file raises NotFoundError at the first read. Writes to an object store are
    uploaded when the file is closed.
    """

    def __init__(self, name: Any, mode: str = "r") -> None:
        if mode not in ("r", "rb", "w", "wb", "a", "ab", "r+", "rb+", "w+", "wb+"):
            raise errors.InvalidArgumentError(
                None, None, f"mode must be 'r', 'rb', 'w', 'wb', 'a' or 'ab'; received {mode!r}")
        self._name = os.fspath(name)
        self._mode = mode
        self._binary = "b" in mode
        self._file: Any = None
        self._closed = False
        if "w" in mode or "a" in mode:
            self._open()

    @property
    def name(self) -> str:
        """The path or URL of the file."""
        return self._name

    @property
    def mode(self) -> str:
        """The mode the file was opened in."""
        return self._mode

    def _open(self) -> Any:
        if self._closed:
            raise ValueError(f"I/O operation on closed file {self._name}")
        if self._file is None:
            fs, p, _ = _split(self._name)
            raw_mode = self._mode.replace("b", "").replace("+", "")
            if raw_mode in ("w", "a"):
                parent = posixpath.dirname(p)
                if _is_local(fs):
                    if parent and not os.path.isdir(parent):
                        raise _not_found(parent, " (the parent directory of the file to write)")
            try:
                handle = fs.open(p, raw_mode + "b")
            except FileNotFoundError:
                raise _not_found(self._name) from None
            except IsADirectoryError:
                raise errors.FailedPreconditionError(None, None, f"{self._name} is a directory") from None
            self._file = handle if self._binary else io.TextIOWrapper(handle, encoding="utf-8", newline="")
        return self._file

    def size(self) -> int:
        """The size of the file in bytes."""
        return stat(self._name).length

    def read(self, n: int = -1) -> Any:
        """Returns `n` bytes/characters (all that remain with -1)."""
        return self._open().read(n)

    def readline(self) -> Any:
        """Reads the next line (with its newline)."""
        return self._open().readline()

    def readlines(self) -> list:
        """Returns all lines of the file."""
        return self._open().readlines()

    def __iter__(self) -> Iterator:
        return iter(self._open())

    def __next__(self) -> Any:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def next(self) -> Any:
        """The next line (TF 1's name)."""
        return self.__next__()

    def write(self, file_content: Any) -> None:
        """Writes `file_content` (str in text mode, bytes in binary mode; str is UTF-8 encoded)."""
        f = self._open()
        if self._binary and isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        elif not self._binary and isinstance(file_content, bytes):
            file_content = file_content.decode("utf-8")
        f.write(file_content)

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None) -> None:
        """Seeks to `offset` (or `position`, TF 1's name) relative to `whence`."""
        target = position if position is not None else offset
        self._open().seek(target or 0, whence)

    def tell(self) -> int:
        """The current position in the file."""
        return self._open().tell()

    def seekable(self) -> bool:
        """True: GFiles are seekable."""
        return True

    def flush(self) -> None:
        """Flushes buffered writes (an object store uploads on close)."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Closes the file (uploading what was written to an object store)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._closed = True

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


Open = GFile
