"""The versions of one served model: found on disk, loaded, looked up by request.

`--model_base_path` holds one directory per version, named by its number (an
export's Unix timestamp works: `Estimator.export_saved_model` names its
directories so); other names (an exporter's `temp-...` directory) are ignored,
as TensorFlow Serving ignores them.

Version policy (TF Serving's default, "latest", plus lazy loading):
- the newest version that loads is served when a request names no version;
  if the newest fails to load, the next newest is tried, and the failure is
  reported by the status API (state END with the error);
- an older version on disk is loaded by the first request that names it
  (`/versions/N`) and then stays loaded while its directory exists;
- with `poll_seconds > 0` a background thread looks for new versions every
  `poll_seconds` (TF's `--file_system_poll_wait_seconds`): a newer version is
  loaded while the current one keeps serving, then swapped in; the version it
  replaced is unloaded unless a request named it; a version whose directory
  was removed is unloaded. Requests in flight keep the servable they started
  with.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from torchestimator.serving._errors import RequestError, not_found

_LOG = logging.getLogger("torchestimator.serving")
_MAX_VERSION = 2**63 - 1


def load_export(path: str) -> Any:
    """Loads one export directory with `tf.saved_model.load` (the one place the server loads)."""
    from torchestimator import saved_model

    return saved_model.load(path)


class Servable:
    """One loaded version: its number, directory and the loaded export."""

    def __init__(self, version: int, path: str, loaded: Any):
        self.version = version
        self.path = path
        self.loaded = loaded
        self.signatures: Mapping[str, Any] = loaded.signatures
        self.feature_spec = getattr(loaded, "feature_spec", None)

    def signature(self, name: str) -> Any:
        """The signature named `name`; a 400 RequestError listing the names there are."""
        try:
            return self.signatures[name]
        except KeyError:
            raise RequestError(
                f'Serving signature name: "{name}" not found in signature def; this export '
                f"(version {self.version}) has {sorted(self.signatures)}") from None


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
    import errno

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


class ModelVersions:
    """The versions of the model `name` under `base_path`, loaded with `loader`."""

    def __init__(self, name: str, base_path: str, loader: Callable[[str], Any] = load_export,
                 poll_seconds: float = 1.0):
        self.name = name
        self.base_path = os.path.abspath(os.fspath(base_path))
        self._loader = loader
        self._poll_seconds = poll_seconds
        self._loaded: dict[int, Servable] = {}
        self._latest: Servable | None = None
        self._pinned: set[int] = set()  # versions a request named: kept across reloads
        self._failed: dict[int, tuple[float, str]] = {}  # version -> (dir mtime, error)
        self._loading: set[int] = set()
        self._lock = threading.RLock()  # guards the dicts above
        self._load_lock = threading.Lock()  # one load at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Checks the base path, loads the newest version, starts the poll thread."""
        self.check_base_path()
        self.refresh()
        if self._latest is None:
            _LOG.warning("No versions of servable %s found under base path %s; waiting for one",
                         self.name, self.base_path)
        if self._poll_seconds > 0:
            self._thread = threading.Thread(target=self._poll, name=f"poll-{self.name}",
                                            daemon=True)
            self._thread.start()

    def check_base_path(self) -> None:
        """FileNotFoundError, saying what to pass, unless the base path is a directory of
        versions (it may hold none yet)."""
        if not os.path.isdir(self.base_path):
            raise FileNotFoundError(
                f"--model_base_path {self.base_path!r} of model {self.name!r} is not a directory; "
                "pass the directory that holds the numbered version directories (the "
                "export_dir_base given to export_saved_model)")
        if not list_versions(self.base_path) and os.path.exists(
                os.path.join(self.base_path, "saved_model.json")):
            raise FileNotFoundError(
                f"--model_base_path {self.base_path!r} is itself an export (it holds "
                "saved_model.json); pass its parent directory, which holds the numbered "
                "version directories")

    def stop(self) -> None:
        """Stops the poll thread (loaded versions stay usable by requests in flight)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _poll(self) -> None:
        """The poll thread: refreshes every poll_seconds until stopped, whatever happens (a
        failure, such as running out of file descriptors, is logged once until it changes or
        clears, and the next poll tries again)."""
        last_error = ""
        while not self._stop.wait(self._poll_seconds):
            try:
                self.refresh()
            except Exception as error:  # noqa: BLE001 - the poller must survive anything
                text = f"{type(error).__name__}: {error}"
                if text != last_error:
                    _LOG.error("Polling %s for new versions failed (retrying every %g s): %s",
                               self.base_path, self._poll_seconds, text)
                last_error = text
                continue
            if last_error:
                _LOG.info("Polling %s for new versions works again", self.base_path)
                last_error = ""

    # ------------------------------------------------------------------------- loading
    def _load(self, version: int, path: str) -> Servable | None:
        """Loads `version` (once; failures are remembered until its directory changes)."""
        with self._load_lock:
            with self._lock:
                if version in self._loaded:
                    return self._loaded[version]
                failed = self._failed.get(version)
                if failed is not None and failed[0] == _stamp(path):
                    return None
                self._loading.add(version)
            started = time.perf_counter()
            try:
                servable = Servable(version, path, self._loader(path))
            except Exception as error:  # noqa: BLE001 - reported by the status API
                message = f"{type(error).__name__}: {error}"
                if _transient(error):  # not the export's fault: tried again next poll
                    _LOG.warning("Loading servable %s version %d from %s failed for now (will "
                                 "retry): %s", self.name, version, path, message)
                    with self._lock:
                        self._loading.discard(version)
                    return None
                _LOG.error("Loading servable %s version %d from %s failed: %s", self.name,
                           version, path, message)
                with self._lock:
                    self._failed[version] = (_stamp(path), message)
                    self._loading.discard(version)
                return None
            with self._lock:
                self._loaded[version] = servable
                self._failed.pop(version, None)
                self._loading.discard(version)
            _LOG.info("Successfully loaded servable version {name: %s version: %d} in %.2f s",
                      self.name, version, time.perf_counter() - started)
            return servable

    def refresh(self) -> None:
        """Looks at the base path once: serves the newest version that loads, unloads
        versions whose directories are gone."""
        on_disk = list_versions(self.base_path)
        with self._lock:
            for version in [v for v in self._loaded if v not in on_disk]:
                del self._loaded[version]
                self._pinned.discard(version)
                _LOG.info("Unloaded servable version {name: %s version: %d} (directory removed)",
                          self.name, version)
            for version in [v for v in self._failed if v not in on_disk]:
                del self._failed[version]
        for version in sorted(on_disk, reverse=True):
            current = self._latest
            if current is not None and current.version >= version and current.version in on_disk:
                break
            servable = self._load(version, on_disk[version])
            if servable is None:
                continue
            with self._lock:
                previous, self._latest = self._latest, servable
                if (previous is not None and previous.version != version
                        and previous.version not in self._pinned):
                    self._loaded.pop(previous.version, None)
                    _LOG.info("Unloaded servable version {name: %s version: %d}", self.name,
                              previous.version)
            break
        with self._lock:
            if self._latest is not None and self._latest.version not in on_disk:
                # removed and nothing on disk loads: keep serving the newest still loaded
                self._latest = max(self._loaded.values(), key=lambda s: s.version, default=None)

    # ------------------------------------------------------------------------- lookups
    def get(self, version: int | None) -> Servable:
        """The servable for a request: the newest when `version` is None, else that version
        (loaded now if it is on disk). A 404 RequestError when there is none."""
        if version is None:
            latest = self._latest
            if latest is None:
                raise not_found(f"Servable not found for request: Latest({self.name}); no version "
                                f"of model {self.name!r} has loaded from {self.base_path}"
                                + self._failures_text())
            return latest
        servable = self._loaded.get(version)
        if servable is not None:
            return servable
        path = os.path.join(self.base_path, str(version))
        if version > _MAX_VERSION or not os.path.isdir(path) or links_outside(self.base_path,
                                                                              path):
            raise not_found(f"Servable not found for request: Specific({self.name}, {version}); "
                            f"versions of {self.name!r} on disk: "
                            f"{sorted(list_versions(self.base_path))}")
        servable = self._load(version, path)
        if servable is None:
            raise not_found(f"Servable not found for request: Specific({self.name}, {version}); "
                            f"it failed to load: {self._failed[version][1]}")
        with self._lock:
            self._pinned.add(version)
        return servable

    def _failures_text(self) -> str:
        with self._lock:
            failed = dict(self._failed)
        if not failed:
            return ""
        return "; failed versions: " + "; ".join(f"{v}: {m}" for v, (_, m) in sorted(failed.items()))

    def status(self, version: int | None) -> list[dict]:
        """TF Serving's `model_version_status` list (GetModelStatusResponse)."""
        if version is not None:
            with self._lock:
                failed = self._failed.get(version)
            if failed is not None and version not in self._loaded:
                return [_status_entry(version, "END", "UNKNOWN", failed[1])]
            self.get(version)
            return [_status_entry(version, "AVAILABLE")]
        with self._lock:
            entries = {v: _status_entry(v, "AVAILABLE") for v in self._loaded}
            entries.update({v: _status_entry(v, "LOADING") for v in self._loading})
            entries.update({v: _status_entry(v, "END", "UNKNOWN", m)
                            for v, (_, m) in self._failed.items() if v not in self._loaded})
        if not entries:
            raise not_found(f"Servable not found for request: Latest({self.name}); no version of "
                            f"model {self.name!r} under {self.base_path}")
        return [entries[v] for v in sorted(entries)]


def _status_entry(version: int, state: str, code: str = "OK", message: str = "") -> dict:
    return {"version": str(version), "state": state,
            "status": {"error_code": code, "error_message": message}}
