"""One writer per directory: an advisory lock on `<dir>/.lock` held while a call writes it.

`Estimator.train` and the Keras callbacks that write a directory
(`ModelCheckpoint`, `BackupAndRestore`) hold the lock of their directory for
the whole call, so a job started twice, or a restarted pod while the old one
still runs, fails at once instead of interleaving two runs' checkpoints.
The lock is `fcntl.flock` on an open file: the operating system releases it
when the process dies, so a SIGKILL never leaves a stale lock. The holder
writes its host, pid and purpose into the file, and a second writer's error
names them. Readers (`evaluate`, `predict`, an evaluator, a server) never take
the lock: every file they read is written atomically.

If the directory is deleted while the lock is held (the lock file goes with
it), the holder's next write re-creates the directory, then re-creates the lock
file and locks it again (`hold_again_if_recreated`, called by the checkpoint
and `atomic_write_bytes` writers), so a second writer is still refused; if
another process took the lock of the re-created directory first, that write
fails with DirectoryLockedError naming it instead of interleaving.

Within one process the lock is re-entrant (a hook that saves during `train`
does not deadlock with it). `TORCHESTIMATOR_LOCK_WAIT_SECS` makes a second
writer wait that many seconds for the holder to finish before failing
(`inf` waits for ever); the default, 0, fails at once.

An object store (`s3://`, `gs://`, `memory://` model_dir) has no advisory locks:
there the lock is skipped, with one info line, and keeping one writer per
directory is the job scheduler's (TF's own `gs://` model_dirs had no lock either).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no advisory locks, no protection
    fcntl = None  # type: ignore[assignment]

LOCK_FILENAME = ".lock"
WAIT_ENV = "TORCHESTIMATOR_LOCK_WAIT_SECS"
_POLL_SECS = 0.1

_log = logging.getLogger(__name__)


class _Held:
    """A lock this process holds: the open lock file, how many `with` blocks hold it."""

    def __init__(self, handle: Any, directory: str, lock_name: str, purpose: str) -> None:
        self.handle, self.depth = handle, 1
        self.directory, self.lock_name, self.purpose = directory, lock_name, purpose


_HELD: dict[str, _Held] = {}  # real path of the lock file -> the lock
_GUARD = threading.RLock()


class DirectoryLockedError(RuntimeError):
    """Another process holds the write lock of a directory (its host and pid are named)."""

    def __init__(self, directory: str, holder: dict[str, Any], purpose: str):
        self.directory = directory
        self.holder = holder
        who = (f"process {holder.get('pid', '?')} on host {holder.get('host', '?')}"
               f"{' (' + holder['purpose'] + ')' if holder.get('purpose') else ''}"
               f"{' since ' + holder['since'] if holder.get('since') else ''}") if holder \
            else "another process"
        super().__init__(
            f"{purpose}: the directory {directory!r} is being written by {who}. Two writers on one "
            "model_dir would interleave their checkpoints. Stop the other job, use another "
            f"directory, or set {WAIT_ENV} to wait for it to finish."
        )


def wait_seconds() -> float:
    """How long a second writer waits for the lock, from `TORCHESTIMATOR_LOCK_WAIT_SECS`."""
    raw = os.environ.get(WAIT_ENV, "").strip()
    if not raw:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(
            f"{WAIT_ENV}={raw!r} is not a number of seconds; use e.g. 0 (fail at once), 60, or inf."
        ) from None
    if value < 0 or math.isnan(value):
        raise ValueError(f"{WAIT_ENV}={raw!r} must be >= 0 seconds (or inf).")
    return value


def _read_holder(handle: Any) -> dict[str, Any]:
    try:
        handle.seek(0)
        text = handle.read()
        return json.loads(text) if text.strip() else {}
    except (OSError, ValueError):
        return {}


def hold_locks(stack: contextlib.ExitStack, locks: list[tuple[str, str]], purpose: str) -> None:
    """Enters `directory_lock(directory, purpose, lock_name=name)` on `stack` for each pair."""
    for directory, name in locks:
        stack.enter_context(directory_lock(directory, purpose, lock_name=name))


@contextlib.contextmanager
def directory_lock(directory: str, purpose: str, enabled: bool = True,
                   lock_name: str = LOCK_FILENAME) -> Iterator[None]:
    """Holds the write lock of `directory` (created if missing) for the `with` block.

    `lock_name` names the lock file, for writers that own only some of a
    directory's files (a `ModelCheckpoint` pattern in a shared folder).

    Raises:
        DirectoryLockedError: another process holds it (after waiting
            `TORCHESTIMATOR_LOCK_WAIT_SECS`), naming the directory, host and pid.
    """
    if not enabled or fcntl is None:
        yield
        return
    if "://" in directory and not directory.startswith("file://"):
        _log.info("No write lock on %s: object stores have no file locks (%s).", directory, purpose)
        yield
        return
    directory = directory[len("file://"):] if directory.startswith("file://") else directory
    os.makedirs(directory, exist_ok=True)
    key = os.path.join(os.path.realpath(directory), lock_name)
    with _GUARD:
        held = _HELD.get(key)
        if held is not None:
            held.depth += 1
    if held is None:
        handle = _acquire(directory, purpose, lock_name)
        with _GUARD:
            _HELD[key] = held = _Held(handle, directory, lock_name, purpose)
    try:
        yield
    finally:
        with _GUARD:
            held.depth -= 1
            last = held.depth == 0
            if last:
                del _HELD[key]
        if last:
            _release(held.handle)


def hold_again_if_recreated(directory: str) -> None:
    """Makes sure the locks this process holds in `directory` still lock its lock files.

    Writers call it after (re-)creating `directory` and before writing into it. When the
    directory (or just its lock file) was deleted while the lock was held, the lock file is
    created again and locked again, with a warning; nothing happens when this process holds
    no lock there (the usual case costs one dictionary look-up).

    Raises:
        DirectoryLockedError: another process took the lock of the re-created directory
            first; the message names it.
    """
    if not _HELD or fcntl is None or "://" in directory:
        return
    here = os.path.realpath(directory)
    with _GUARD:
        for key, held in list(_HELD.items()):
            path = os.path.join(held.directory, held.lock_name)
            if os.path.dirname(key) != here or _same_file(path, held.handle):
                continue
            _log.warning(
                "The lock file %s was deleted (with its directory?) while this process held it "
                "for %s; creating it again and taking the lock again.", path, held.purpose)
            handle = _acquire(held.directory, held.purpose, held.lock_name, wait=False)
            _release(held.handle)
            held.handle = handle


def _same_file(path: str, handle: Any) -> bool:
    """Whether the open `handle` is the file at `path` (not deleted or replaced since)."""
    try:
        on_disk = os.stat(path)
        mine = os.fstat(handle.fileno())
    except OSError:
        return False
    return (on_disk.st_dev, on_disk.st_ino) == (mine.st_dev, mine.st_ino)


def _acquire(directory: str, purpose: str, lock_name: str, wait: bool = True) -> Any:
    path = os.path.join(directory, lock_name)
    deadline = time.monotonic() + (wait_seconds() if wait else 0.0)
    while True:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = _read_holder(handle)
                handle.close()
                raise DirectoryLockedError(directory, holder, purpose) from None
            handle.close()
            time.sleep(_POLL_SECS)
            continue
        except OSError:
            handle.close()
            raise
        if _same_file(path, handle):
            break
        # The file was deleted (with its directory?) between open and flock: the lock is on
        # a file nobody else can open. Lock the one at the path instead.
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()
    holder = {"host": socket.gethostname(), "pid": os.getpid(), "purpose": purpose,
              "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps(holder))
    handle.flush()
    return handle


def _release(handle: Any) -> None:
    try:
        handle.seek(0)
        handle.truncate()
        handle.flush()
    except OSError:
        pass  # a directory deleted while we held it: nothing left to tidy
    finally:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()
