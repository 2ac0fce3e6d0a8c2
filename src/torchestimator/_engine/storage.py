"""Paths of model_dirs, checkpoints and exports that may be URLs (`s3://`, `gs://`, `memory://`, ...).

Every function takes a local path or a URL. A local path (or a `file://` URL, which
`local` strips) goes straight to `os` — the fast path makes no fsspec call — and
anything else goes to the fsspec filesystem of its scheme, through `tf.io.gfile`'s
resolution (`s3fs` for `s3://`, `gcsfs` for `gs://`, ...).

Object stores differ from a disk in three ways that the writers here account for:
an object appears whole when its one upload completes (so `write_bytes` is atomic
per object, with no temporary name), there is no rename (a checkpoint's files are
uploaded data first and the file that completes it last), and listings can be
cached by the filesystem object (`listdir` and the existence checks refresh them,
since another worker may have written since).
"""

from __future__ import annotations

import os
import posixpath
import shutil
from typing import Any

__all__ = [
    "abspath", "basename", "dirname", "exists", "getmtime", "getsize", "is_url", "isdir", "isfile",
    "join", "listdir", "local", "makedirs", "open_read", "read_bytes", "remove", "rmtree",
    "signature", "write_bytes",
]


def is_url(path: str) -> bool:
    """True when `path` is a URL of a non-local filesystem (`file://` URLs are local)."""
    return "://" in path and not path.startswith("file://")


def local(path: str) -> str:
    """`path` without a `file://` scheme (other paths and URLs unchanged)."""
    return path[len("file://"):] if path.startswith("file://") else path


def _fs(url: str) -> tuple[Any, str]:
    from torchestimator._engine.gfile import _split  # lazy: heavy (fsspec, 330 ms)

    fs, p, _ = _split(url)
    return fs, p


def _fresh(url: str) -> tuple[Any, str]:
    """The filesystem and path of `url`, its cached listing dropped (another process may
    have written there since)."""
    fs, p = _fs(url)
    try:
        fs.invalidate_cache(p)
    except Exception:  # not every filesystem implements it
        pass
    return fs, p


def abspath(path: str) -> str:
    """A canonical key for `path`: `os.path.abspath` of a local path, a URL unchanged (less a
    trailing '/')."""
    if is_url(path):
        return path.rstrip("/") if not path.endswith("://") else path
    return os.path.abspath(local(path))


def join(path: str, *names: str) -> str:
    """`os.path.join` for local paths; '/'-joined for URLs (the scheme kept)."""
    if not is_url(path):
        return os.path.join(path, *names)
    out = path
    for name in names:
        out = out.rstrip("/") + "/" + name.lstrip("/")
    return out


def dirname(path: str) -> str:
    """The folder of `path` (`scheme://bucket` stays whole for a URL)."""
    if not is_url(path):
        return os.path.dirname(path)
    scheme, _, rest = path.partition("://")
    return f"{scheme}://{posixpath.dirname(rest.rstrip('/'))}"


def basename(path: str) -> str:
    """The last component of `path`."""
    return posixpath.basename(path.rstrip("/")) if is_url(path) else os.path.basename(path)


def exists(path: str) -> bool:
    """Whether the file or folder exists."""
    if not is_url(path):
        return os.path.exists(local(path))
    fs, p = _fresh(path)
    return bool(fs.exists(p))


def isfile(path: str) -> bool:
    """Whether `path` is a file (an object)."""
    if not is_url(path):
        return os.path.isfile(local(path))
    fs, p = _fresh(path)
    return bool(fs.isfile(p))


def isdir(path: str) -> bool:
    """Whether `path` is a folder (on an object store: a prefix holding objects)."""
    if not is_url(path):
        return os.path.isdir(local(path))
    fs, p = _fresh(path)
    return bool(fs.isdir(p))


def listdir(path: str) -> list[str]:
    """The names in folder `path` (FileNotFoundError when there is none), as `os.listdir`."""
    if not is_url(path):
        return os.listdir(local(path))
    fs, p = _fresh(path)
    try:
        entries = fs.ls(p, detail=False)
    except FileNotFoundError:
        raise FileNotFoundError(f"No such folder: {path}") from None
    names = {posixpath.basename(str(e).rstrip("/")) for e in entries}
    names.discard("")
    return sorted(names)


def makedirs(path: str) -> None:
    """Creates folder `path` and its parents (a no-op on stores without folders)."""
    if not is_url(path):
        os.makedirs(local(path), exist_ok=True)
        return
    fs, p = _fs(path)
    fs.makedirs(p, exist_ok=True)


def read_bytes(path: str) -> bytes:
    """The whole content of file `path` (FileNotFoundError when missing)."""
    if not is_url(path):
        with open(local(path), "rb") as f:
            return f.read()
    fs, p = _fs(path)
    return _naming_missing(path, fs.cat_file, p)


def read_at_most(path: str, limit: int) -> bytes | None:
    """The content of file `path` if it holds at most `limit` bytes, else None; never reads more
    than `limit + 1` bytes, whatever the file's size (FileNotFoundError when missing)."""
    pieces: list[bytes] = []
    got = 0
    with open_read(path) as f:
        while got <= limit:  # each read asks for no more than has arrived (a read preallocates)
            piece = f.read(min(limit + 1 - got, max(got, 64 << 10)))
            if not piece:
                break
            pieces.append(piece)
            got += len(piece)
    return None if got > limit else b"".join(pieces)


def open_read(path: str) -> Any:
    """A binary, seekable file object reading `path` (the caller closes it)."""
    if not is_url(path):
        return open(local(path), "rb")  # noqa: SIM115 - the caller closes it
    fs, p = _fs(path)
    return _naming_missing(path, fs.open, p, "rb")


def write_bytes(path: str, data: bytes) -> None:
    """Writes file `path` whole. On an object store it is one upload: readers see the old
    object or the new one, never a part. (Local writers that need temp + rename do it
    themselves: this is for URLs.)"""
    if not is_url(path):
        with open(local(path), "wb") as f:
            f.write(data)
        return
    fs, p = _fs(path)
    fs.pipe_file(p, bytes(data))
    try:
        fs.invalidate_cache(posixpath.dirname(p))
    except Exception:
        pass


def remove(path: str, missing_ok: bool = True) -> None:
    """Deletes file `path` (nothing when it is missing and `missing_ok`)."""
    if not is_url(path):
        try:
            os.remove(local(path))
        except FileNotFoundError:
            if not missing_ok:
                raise
        return
    fs, p = _fresh(path)
    try:
        fs.rm_file(p)
    except FileNotFoundError:
        if not missing_ok:
            raise


def rmtree(path: str) -> None:
    """Deletes folder `path` and everything in it (nothing when it is missing)."""
    if not is_url(path):
        shutil.rmtree(local(path), ignore_errors=True)
        return
    fs, p = _fresh(path)
    try:
        fs.rm(p, recursive=True)
    except FileNotFoundError:
        pass


def _info(path: str) -> dict[str, Any]:
    fs, p = _fresh(path)
    return _naming_missing(path, fs.info, p)


def _naming_missing(path: str, method: Any, *args: Any) -> Any:
    """`method(*args)` of a store's filesystem; its FileNotFoundError names the URL `path`."""
    try:
        return method(*args)
    except FileNotFoundError:
        raise FileNotFoundError(f"No such file: {path}") from None


def getsize(path: str) -> int:
    """The size of file `path` in bytes (FileNotFoundError when missing)."""
    if not is_url(path):
        return os.path.getsize(local(path))
    return int(_info(path).get("size") or 0)


def _stamp(info: dict[str, Any]) -> Any:
    for key in ("ETag", "etag", "md5Hash", "generation", "LastModified", "mtime", "created"):
        if info.get(key) is not None:
            return info[key]
    return None


def getmtime(path: str) -> float:
    """The modification time of `path` in seconds (0 when the store keeps none)."""
    if not is_url(path):
        return os.path.getmtime(local(path))
    info = _info(path)
    for key in ("mtime", "LastModified", "created", "updated"):
        value = info.get(key)
        if value is None:
            continue
        if hasattr(value, "timestamp"):
            return float(value.timestamp())
        try:
            return float(value)
        except (TypeError, ValueError):
            continue
    return 0.0


def signature(path: str) -> tuple | None:
    """Something that changes when file `path` is replaced (inode, size and mtime locally; size
    and ETag or time on a store), or None when it is missing or the store tells nothing."""
    if not is_url(path):
        try:
            s = os.stat(local(path))
        except OSError:
            return None
        return (s.st_ino, s.st_size, s.st_mtime_ns)
    try:
        info = _info(path)
    except (OSError, ValueError):
        return None
    stamp = _stamp(info)
    return None if stamp is None else (info.get("size"), str(stamp))
