"""One loaded model version (`Servable`) and the version directories under a base path.

`list_versions` finds the numbered version directories of a model's base path
(symlinks out of it left out, `links_outside`); `load_export` loads one;
`Servable` is a loaded version with the reference count that keeps it loaded
while requests hold it. `_versions.ModelVersions` decides which versions load.
"""

from __future__ import annotations

import errno
import gc
import logging
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from torchestimator import saved_model
from torchestimator.serving._errors import RequestError

_LOG = logging.getLogger("torchestimator.serving")
_MAX_VERSION = 2**63 - 1


def load_export(path: str) -> Any:
    """Loads one export directory with `tf.saved_model.load` (the one place the server loads)."""
    return saved_model.load(path)


class Servable:
    """One loaded version: its number, directory and the loaded export.

    Requests hold it between `ModelVersions.acquire` and `release` (a reference count);
    a version taken out of service (`retire`) is unloaded once the last request holding it
    is answered, and the unload is logged then, in TF Serving's words.
    """

    def __init__(self, version: int, path: str, loaded: Any, name: str = "",
                 on_unload: Callable[[Servable], None] | None = None):
        self.version = version
        self.path = path
        self.name = name
        self.loaded = loaded
        self.signatures: Mapping[str, Any] = loaded.signatures
        self.feature_spec = getattr(loaded, "feature_spec", None)
        self._refs = 0
        self._retired = False
        self._unloaded = False
        self._ref_lock = threading.Lock()
        self._on_unload = on_unload

    def signature(self, name: str) -> Any:
        """The signature named `name`; a 400 RequestError listing the names there are."""
        try:
            return self.signatures[name]
        except KeyError:
            raise RequestError(
                f'Serving signature name: "{name}" not found in signature def; this export '
                f"(version {self.version}) has {sorted(self.signatures)}") from None

    @property
    def unloaded(self) -> bool:
        """True once the version has been retired and every request holding it answered."""
        return self._unloaded

    def _acquire(self) -> None:
        with self._ref_lock:
            self._refs += 1

    def release(self) -> None:
        """Ends one request's hold (see `ModelVersions.acquire`); the last one on a retired
        version unloads it."""
        with self._ref_lock:
            self._refs -= 1
            unload = self._retired and self._refs == 0 and not self._unloaded
            if unload:
                self._unloaded = True
        if unload:
            self._unload()

    def retire(self) -> None:
        """Takes the version out of service: it is unloaded now if no request holds it, else
        when the last one is answered."""
        with self._ref_lock:
            self._retired = True
            unload = self._refs == 0 and not self._unloaded
            if unload:
                self._unloaded = True
        if unload:
            self._unload()

    def _unload(self) -> None:
        self.loaded = None  # (the signatures stay readable for a metadata request racing this)
        gc.unfreeze()  # (the server froze what it loaded first: let this version's cycles go)
        if self._on_unload is not None:
            self._on_unload(self)
        _LOG.info("Done unloading servable version {name: %s version: %d}", self.name,
                  self.version)


_REFUSED_LINKS: set[tuple[str, str]] = set()  # (link, target) already logged


def links_outside(base_path: str, path: str) -> bool:
    """True (logged once per link and target) when the version directory `path` is a symlink
    resolving outside `base_path`: such a version is never loaded."""
    if not os.path.islink(path):
        return False
    base, target = os.path.realpath(base_path), os.path.realpath(path)
    if os.path.commonpath([base, target]) == base:
        return False
    if (path, target) not in _REFUSED_LINKS:
        _REFUSED_LINKS.add((path, target))
        _LOG.error("Refusing version directory %s: it is a symlink to %s, outside the model base "
                   "path %s; copy the export into the base path instead", path, target, base)
    return True


def list_versions(base_path: str) -> dict[int, str]:
    """Version number -> directory for the numbered subdirectories of `base_path` (symlinks
    out of `base_path` left out)."""
    found: dict[int, str] = {}
    try:
        entries = os.scandir(base_path)
    except FileNotFoundError:
        return found
    with entries:
        for entry in entries:
            if (entry.name.isdigit() and entry.is_dir()
                    and not (entry.is_symlink() and links_outside(base_path, entry.path))):
                version = int(entry.name)
                if version <= _MAX_VERSION:
                    found[version] = entry.path
    return found


def _transient(error: BaseException) -> bool:
    """True for a load failure that says nothing about the export: out of file descriptors
    or memory (such a version is tried again rather than marked failed)."""
    if isinstance(error, MemoryError):
        return True
    for _ in range(8):  # the error and what caused it (a chain can loop)
        if error is None:
            break
        if isinstance(error, OSError) and error.errno in (errno.EMFILE, errno.ENFILE,
                                                          errno.ENOMEM):
            return True
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return False


def _stamp(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0
