"""The versions of the served models: found on disk, loaded, looked up and held by requests.

A model's base path holds one directory per version, named by its number (an
export's Unix timestamp works: `Estimator.export_saved_model` names its
directories so); other names (an exporter's `temp-...` directory, a copy not
yet renamed into place) are ignored, as TensorFlow Serving ignores them, so a
half-written version is never loaded.

Version policy (TF Serving's `model_version_policy`; `ModelVersions.policy`):
- `latest { num_versions: N }` (the default, N = 1): the N newest versions that
  load; if the newest fails to load, the next newest is tried, and the failure
  is reported by the status API (state END with the error) while the versions
  serving keep serving;
- `all {}`: every version on disk; `specific { versions: ... }`: those;
- a request naming no version gets the newest version served; with `lazy`
  (`--model_base_path`, beyond TF Serving) an older version on disk is also
  loaded by the first request naming it (`/versions/N`) and then stays
  loaded while its directory exists; a `--model_config_file` model serves its
  policy's versions only (404 for others), as TF Serving does;
- `version_labels` name versions (`/labels/LABEL`); a label must name a
  version that is loaded unless --allow_version_labels_for_unavailable_models.

With `poll_seconds > 0` a background thread looks for new versions every
`poll_seconds` (TF's `--file_system_poll_wait_seconds`): a new version is
loaded while the current one keeps serving, then swapped in; a version the
policy no longer serves, or whose directory was removed, is retired. A request
holds its version (`ModelVersions.acquire` / `use`, a reference count on the
`Servable`) until answered: a retired version is reported UNLOADING until its
last request is answered, then unloaded. Loads and unloads are logged in TF
Serving's words ("Successfully loaded servable version {name: x version: 1}",
"Done unloading servable version {name: x version: 1}").

`ModelRegistry` is the name -> ModelVersions mapping the APIs read, and
`ModelConfigWatcher` keeps it in step with a `--model_config_file`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from torchestimator.serving._errors import not_found
from torchestimator.serving._model_config import ModelSpec, VersionPolicy, parse_model_config_text
from torchestimator.serving._servable import (  # noqa: F401 - re-exported: importers use this path
    _MAX_VERSION,
    Servable,
    _stamp,
    _transient,
    links_outside,
    list_versions,
    load_export,
)

_LOG = logging.getLogger("torchestimator.serving")


class ModelVersions:
    """The versions of the model `name` under `base_path`, loaded with `loader`.

    `policy` (a `VersionPolicy`; default: the newest version) decides which versions are
    served. With `lazy` (the default, for `--model_base_path`) a version on disk outside the
    policy is also loaded by the first request naming it; a `--model_config_file` model is
    served strictly by its policy, as TF Serving serves it. `labels` maps version labels
    (`/labels/LABEL`) to versions.
    """

    def __init__(self, name: str, base_path: str, loader: Callable[[str], Any] = load_export,
                 poll_seconds: float = 1.0, *, policy: VersionPolicy | None = None,
                 labels: Mapping[str, int] | None = None, lazy: bool = True,
                 allow_unavailable_labels: bool = False):
        self.name = name
        self.base_path = os.path.abspath(os.fspath(base_path))
        self._loader = loader
        self._poll_seconds = poll_seconds
        self.policy = policy or VersionPolicy()
        self._lazy = lazy
        self._labels: dict[str, int] = dict(labels or {})
        self._allow_unavailable_labels = allow_unavailable_labels
        self._loaded: dict[int, Servable] = {}
        self._latest: Servable | None = None
        self._pinned: set[int] = set()  # versions a request named: kept across reloads (lazy)
        self._failed: dict[int, tuple[float, str]] = {}  # version -> (dir mtime, error)
        self._loading: set[int] = set()
        self._draining: dict[int, Servable] = {}  # retired, requests still in flight
        self._lock = threading.RLock()  # guards the dicts above
        self._load_lock = threading.Lock()  # one load at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Checks the base path, loads the versions the policy names, starts the poll
        thread."""
        self.check_base_path()
        self.refresh()
        if self._latest is None:
            _LOG.warning("No versions of servable %s found under base path %s; waiting for one",
                         self.name, self.base_path)
        problem = self.label_problem(self._labels, first=True)
        if problem is not None:
            raise ValueError(problem)
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
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def unload_all(self) -> None:
        """Stops polling and retires every version (the model left the config): each is
        unloaded once the requests holding it are answered."""
        self.stop()
        with self._lock:
            servables = list(self._loaded.values())
            self._loaded.clear()
            self._latest = None
            self._pinned.clear()
            for servable in servables:
                self._draining[servable.version] = servable
        for servable in servables:
            servable.retire()

    def update(self, policy: VersionPolicy, labels: Mapping[str, int]) -> str | None:
        """Applies a reloaded config entry: the new policy now, the labels once the versions
        they name are available. Returns why the labels were not applied, or None."""
        self.policy = policy
        self.refresh()
        problem = self.label_problem(labels)
        if problem is None:
            with self._lock:
                self._labels = dict(labels)
        return problem

    def label_problem(self, labels: Mapping[str, int], first: bool = False) -> str | None:
        """Why `labels` cannot be assigned now (a label naming a version not available, but
        for a label kept as it was, unless `first`), or None. (TF Serving's rule, unless
        --allow_version_labels_for_unavailable_models.)"""
        if self._allow_unavailable_labels:
            return None
        with self._lock:
            available = set(self._loaded)
            current = {} if first else dict(self._labels)
        for label, version in sorted(labels.items()):
            if version not in available and current.get(label) != version:
                return (f"Request to assign label {label!r} to version {version} of model "
                        f"{self.name!r}, which is not currently available for inference "
                        f"(available: {sorted(available)}); load that version first or pass "
                        "--allow_version_labels_for_unavailable_models")
        return None

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
                servable = Servable(version, path, self._loader(path), self.name,
                                    self._forget_unloaded)
            except Exception as error:  # noqa: BLE001 - reported by the status API
                message = f"{type(error).__name__}: {error}"
                if _transient(error):  # not the export's fault: tried again next poll
                    _LOG.warning("Loading servable %s version %d from %s failed for now (will "
                                 "retry): %s", self.name, version, path, message)
                    with self._lock:
                        self._loading.discard(version)
                    return None
                _LOG.error("Loading servable: {name: %s version: %d} failed: %s (from %s)",
                           self.name, version, message, path)
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

    def _forget_unloaded(self, servable: Servable) -> None:
        with self._lock:
            if self._draining.get(servable.version) is servable:
                del self._draining[servable.version]

    def _retire(self, version: int) -> Servable | None:
        """Takes `version` out of service (under the lock); the caller calls its `retire()`
        after releasing the lock."""
        servable = self._loaded.pop(version, None)
        self._pinned.discard(version)
        if servable is not None:
            self._draining[version] = servable
        return servable

    def _wanted(self, on_disk: Mapping[int, str]) -> list[int]:
        """The versions the policy serves, loading them now (newest first); for `latest`,
        the newest ones that load."""
        policy = self.policy
        if policy.kind == "specific":
            candidates = [v for v in sorted(policy.versions, reverse=True) if v in on_disk]
            limit = len(candidates)
        elif policy.kind == "all":
            candidates = sorted(on_disk, reverse=True)
            limit = len(candidates)
        else:
            candidates = sorted(on_disk, reverse=True)
            limit = max(1, policy.num_versions)
        wanted: list[int] = []
        for version in candidates:
            if len(wanted) >= limit:
                break
            if self._load(version, on_disk[version]) is not None:
                wanted.append(version)
        return wanted

    def refresh(self) -> None:
        """Looks at the base path once: loads the versions the policy serves (a version that
        fails to load is reported, and the versions serving keep serving), retires the
        versions the policy no longer serves once another one is available, and those whose
        directories are gone."""
        on_disk = list_versions(self.base_path)
        retired: list[Servable] = []
        with self._lock:
            for version in [v for v in self._loaded if v not in on_disk]:
                retired.append(self._retire(version))
            for version in [v for v in self._failed if v not in on_disk]:
                del self._failed[version]
            if self._latest is not None and self._latest.version not in self._loaded:
                self._latest = self._loaded[max(self._loaded)] if self._loaded else None
        wanted = self._wanted(on_disk)
        with self._lock:
            if wanted:
                keep = set(wanted) | (self._pinned if self._lazy else set())
                for version in [v for v in self._loaded if v not in keep]:
                    retired.append(self._retire(version))
            newest = max(wanted, default=None)
            if newest is None or newest not in self._loaded:
                newest = max(self._loaded, default=None)
            self._latest = None if newest is None else self._loaded[newest]
        for servable in retired:
            if servable is not None:
                servable.retire()

    # ------------------------------------------------------------------------- lookups
    def label_version(self, label: str) -> int:
        """The version `label` names; a 404 RequestError for a label the config does not
        give."""
        with self._lock:
            version = self._labels.get(label)
            known = sorted(self._labels)
        if version is None:
            raise not_found(f"Unrecognized servable version label: {label} (model {self.name!r} "
                            f"has labels {known}; they are set by version_labels in "
                            "--model_config_file)")
        return version

    @property
    def labels(self) -> dict[str, int]:
        """Version label -> version."""
        with self._lock:
            return dict(self._labels)

    def get(self, version: int | None) -> Servable:
        """The servable for a request: the newest when `version` is None, else that version
        (loaded now if it is on disk, with `lazy`). A 404 RequestError when there is none."""
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
        if not self._lazy:
            with self._lock:
                failed = self._failed.get(version)
                served = sorted(self._loaded)
            why = (f"it failed to load: {failed[1]}" if failed is not None else
                   f"the model's version policy ({self.policy.describe()}) serves {served}")
            raise not_found(f"Servable not found for request: Specific({self.name}, {version}); "
                            + why)
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

    def acquire(self, version: int | None = None, label: str | None = None) -> Servable:
        """The servable for a request (as `get`; `label` names the version by its label),
        held until `release()` is called on it: it is not unloaded while held."""
        if label is not None:
            version = self.label_version(label)
        for attempt in range(100):
            if attempt:
                time.sleep(0.001)
            servable = self.get(version)
            with self._lock:
                # still in service: holding it now keeps it loaded (retiring takes this lock)
                if self._loaded.get(servable.version) is servable:
                    servable._acquire()
                    return servable
        raise not_found(f"Servable not found for request: {self.name} version {version}; it "
                        "was being unloaded")

    @contextlib.contextmanager
    def use(self, version: int | None = None, label: str | None = None) -> Iterator[Servable]:
        """`with models.use(version, label) as servable:` acquires and releases it."""
        servable = self.acquire(version, label)
        try:
            yield servable
        finally:
            servable.release()

    def _failures_text(self) -> str:
        with self._lock:
            failed = dict(self._failed)
        if not failed:
            return ""
        return "; failed versions: " + "; ".join(f"{v}: {m}" for v, (_, m) in sorted(failed.items()))

    def status(self, version: int | None) -> list[dict]:
        """TF Serving's `model_version_status` list (GetModelStatusResponse): AVAILABLE,
        LOADING, UNLOADING (retired, requests still in flight) or END (failed to load, with
        the error)."""
        if version is not None:
            with self._lock:
                failed = self._failed.get(version)
                loading = version in self._loading and version not in self._loaded
                draining = version in self._draining and version not in self._loaded
            if failed is not None and version not in self._loaded:
                return [_status_entry(version, "END", "UNKNOWN", failed[1])]
            if loading:
                return [_status_entry(version, "LOADING")]
            if draining:
                return [_status_entry(version, "UNLOADING")]
            self.get(version)
            return [_status_entry(version, "AVAILABLE")]
        with self._lock:
            entries = {v: _status_entry(v, "UNLOADING") for v in self._draining}
            entries.update({v: _status_entry(v, "AVAILABLE") for v in self._loaded})
            entries.update({v: _status_entry(v, "LOADING") for v in self._loading})
            entries.update({v: _status_entry(v, "END", "UNKNOWN", m)
                            for v, (_, m) in self._failed.items() if v not in self._loaded})
        if not entries:
            raise not_found(f"Servable not found for request: Latest({self.name}); no version of "
                            f"model {self.name!r} under {self.base_path}")
        return [entries[v] for v in sorted(entries)]


class ModelRegistry(Mapping):
    """The served models, model name -> `ModelVersions`: a read-only mapping whose contents
    `replace` swaps at once (a reloaded `--model_config_file`)."""

    def __init__(self, models: Mapping[str, ModelVersions] | None = None):
        self._models: dict[str, ModelVersions] = dict(models or {})

    def __getitem__(self, name: str) -> ModelVersions:
        return self._models[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict(self._models))

    def __len__(self) -> int:
        return len(self._models)

    def replace(self, models: Mapping[str, ModelVersions]) -> None:
        """Serves `models` from now on."""
        self._models = dict(models)


def _status_entry(version: int, state: str, code: str = "OK", message: str = "") -> dict:
    return {"version": str(version), "state": state,
            "status": {"error_code": code, "error_message": message}}


class ModelConfigWatcher:
    """The models of a `--model_config_file`, served through `registry`: loaded at `start`,
    and, with `config_poll_seconds > 0` (`--model_config_file_poll_wait_seconds`), the file
    read again every so often and its changes applied while serving: a new model is loaded,
    a removed one unloaded (after its requests in flight), a changed version policy or label
    applied. A file that no longer parses is logged and the models served stay as they are.
    """

    def __init__(self, path: str | os.PathLike, registry: ModelRegistry, *,
                 loader: Callable[[str], Any] = load_export, poll_seconds: float = 1.0,
                 config_poll_seconds: float = 0.0, allow_unavailable_labels: bool = False):
        self.path = os.fspath(path)
        self.registry = registry
        self._loader = loader
        self._poll_seconds = poll_seconds
        self._config_poll_seconds = config_poll_seconds
        self._allow_unavailable_labels = allow_unavailable_labels
        self._text: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Reads the file and loads its models. ValueError (the file's fault: its name and
        what to fix) or FileNotFoundError (a base path) when the server cannot start."""
        text = self._read()
        specs = parse_model_config_text(text, self.path)
        started: dict[str, ModelVersions] = {}
        try:
            for spec in specs:
                started[spec.name] = self._start_model(spec)
        except BaseException:
            for models in started.values():
                models.unload_all()
            raise
        self.registry.replace(started)
        self._text = text
        if self._config_poll_seconds > 0:
            self._thread = threading.Thread(target=self._poll, name="poll-model-config",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stops watching the file and every model's poll thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for name in list(self.registry):
            self.registry[name].stop()

    def _read(self) -> str:
        try:
            with open(self.path, encoding="utf-8") as f:
                return f.read()
        except OSError as error:
            raise ValueError(f"--model_config_file {self.path!r} cannot be read: "
                             f"{error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise ValueError(f"--model_config_file {self.path!r} is not UTF-8 text "
                             f"({error})") from None

    def _start_model(self, spec: ModelSpec) -> ModelVersions:
        models = ModelVersions(spec.name, spec.base_path, self._loader, self._poll_seconds,
                               policy=spec.policy, labels=dict(spec.version_labels), lazy=False,
                               allow_unavailable_labels=self._allow_unavailable_labels)
        try:
            models.start()
        except BaseException:
            models.unload_all()
            raise
        return models

    def _poll(self) -> None:
        while not self._stop.wait(self._config_poll_seconds):
            try:
                self.reload()
            except Exception as error:  # noqa: BLE001 - the watcher must survive anything
                _LOG.error("Reloading --model_config_file %s failed; the models served stay as "
                           "they were: %s: %s", self.path, type(error).__name__, error)

    def reload(self) -> bool:
        """Reads the file again and applies its changes; returns whether it had changed.
        ValueError when it no longer parses (nothing is changed then)."""
        text = self._read()
        if text == self._text:
            return False
        specs = parse_model_config_text(text, self.path)
        self._text = text
        _LOG.info("Adding/updating models from %s", self.path)
        current = dict(self.registry)
        served: dict[str, ModelVersions] = {}
        for spec in specs:
            old = current.get(spec.name)
            if old is not None and old.base_path == spec.base_path:
                problem = old.update(spec.policy, dict(spec.version_labels))
                if problem is not None:
                    _LOG.error("Model %s: version labels not changed: %s", spec.name, problem)
                served[spec.name] = old
                continue
            _LOG.info("(Re-)adding model: %s", spec.name)
            try:
                served[spec.name] = self._start_model(spec)
            except (OSError, ValueError) as error:
                _LOG.error("Model %s from %s not served: %s", spec.name, self.path, error)
                if old is not None:
                    served[spec.name] = old
        self.registry.replace(served)
        for name, old in current.items():
            if served.get(name) is not old:
                _LOG.info("Removing model: %s (unloaded once its requests in flight are "
                          "answered)", name)
                old.unload_all()
        return True
