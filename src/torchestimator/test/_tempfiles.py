"""The temporary folders and files `tf.test.TestCase.create_tempdir`/`create_tempfile` return
(absltest's `_TempDir` and `_TempFile`: a path with `full_path` and helpers to fill it)."""

from __future__ import annotations

import os
import tempfile
from typing import IO, Any


def _under(base: str, relative: str | None, kind: str) -> str:
    """`relative` joined to `base`, refused when it is absolute or climbs out of `base`."""

    if relative is None:
        return ""
    relative = os.fspath(relative)
    joined = os.path.normpath(os.path.join(base, relative))
    if os.path.isabs(relative) or os.path.commonpath([base, joined]) != os.path.normpath(base):
        raise ValueError(
            f"{kind}: {relative!r} is not a relative path inside the temporary directory "
            f"{base}; give a relative path such as 'sub/name'.")
    return joined


class _TempPath:
    """A path made for a test: `full_path` is it, and the object is usable wherever a path is
    (`os.fspath`)."""

    def __init__(self, path: str) -> None:
        self._path = path

    @property
    def full_path(self) -> str:
        """The absolute path."""
        return self._path

    def __fspath__(self) -> str:
        return self._path

    def __str__(self) -> str:
        return self._path

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._path!r})"


class TempDir(_TempPath):
    """A temporary directory made for a test: `full_path` is its path, and it is usable wherever
    a path is (`os.fspath`)."""

    def create_file(self, file_path: str | None = None, content: str | bytes | None = None,
                    mode: str = "w", encoding: str = "utf8", errors: str = "strict") -> TempFile:
        """Creates a file in this directory (`file_path` relative to it, parents made; a new
        unique name when None), writes `content` into it, and returns it as a `TempFile`."""
        return TempFile.create(self._path, file_path, content, mode, encoding, errors)

    def mkdir(self, dir_path: str | None = None) -> TempDir:
        """Creates a directory in this one (`dir_path` relative to it, parents made; a new
        unique name when None) and returns it."""
        return TempDir.create(self._path, dir_path)

    @classmethod
    def create(cls, base: str, dir_path: str | None) -> TempDir:
        """A directory under `base`: `dir_path` (made with its parents) or a new unique one."""
        if dir_path is None:
            return cls(tempfile.mkdtemp(dir=base))
        path = _under(base, dir_path, "create_tempdir")
        os.makedirs(path, exist_ok=True)
        return cls(path)


class TempFile(_TempPath):
    """A temporary file made for a test: `full_path` is its path; read and write it as text or
    bytes, or open it."""

    def read_text(self, encoding: str = "utf8", errors: str = "strict") -> str:
        """The file's contents as text."""
        with open(self._path, encoding=encoding, errors=errors) as f:
            return f.read()

    def read_bytes(self) -> bytes:
        """The file's contents as bytes."""
        with open(self._path, "rb") as f:
            return f.read()

    def write_text(self, text: str, mode: str = "w", encoding: str = "utf8",
                   errors: str = "strict") -> None:
        """Writes `text` to the file (`mode` 'w' replaces, 'a' appends)."""
        with open(self._path, mode, encoding=encoding, errors=errors) as f:
            f.write(text)

    def write_bytes(self, data: bytes, mode: str = "wb") -> None:
        """Writes `data` to the file (`mode` 'wb' replaces, 'ab' appends)."""
        with open(self._path, mode) as f:
            f.write(data)

    def open_text(self, mode: str = "rt", encoding: str = "utf8", errors: str = "strict") -> IO[str]:
        """The file opened in text mode (a context manager)."""
        return open(self._path, mode if "t" in mode else mode + "t", encoding=encoding, errors=errors)

    def open_bytes(self, mode: str = "rb") -> IO[bytes]:
        """The file opened in binary mode (a context manager)."""
        return open(self._path, mode if "b" in mode else mode + "b")

    @classmethod
    def create(cls, base: str, file_path: str | None, content: Any, mode: str = "w",
               encoding: str = "utf8", errors: str = "strict") -> TempFile:
        """A file under `base` (`file_path`, parents made, or a new unique name) holding
        `content` (str or bytes; empty when None)."""
        if file_path is None:
            handle, path = tempfile.mkstemp(dir=base)
            os.close(handle)
        else:
            path = _under(base, file_path, "create_tempfile")
            os.makedirs(os.path.dirname(path), exist_ok=True)
        made = cls(path)
        if isinstance(content, bytes):
            made.write_bytes(content, mode="ab" if "a" in mode else "wb")
        else:
            made.write_text(content or "", mode="a" if "a" in mode else "w", encoding=encoding,
                            errors=errors)
        return made
