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

Within one process the lock is re-entrant (a hook that saves during `train`
does not deadlock with it). `TORCHESTIMATOR_LOCK_WAIT_SECS` makes a second
writer wait that many seconds for the holder to finish before failing
(`inf` waits for ever); the default, 0, fails at once.
"""

from __future__ import annotations

import contextlib
import json
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

_HELD: dict[str, list[Any]] = {}  # real path -> [file object, depth]
_GUARD = threading.Lock()


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
    os.makedirs(directory, exist_ok=True)
    key = os.path.join(os.path.realpath(directory), lock_name)
    with _GUARD:
        held = _HELD.get(key)
        if held is not None:
            held[1] += 1
    if held is None:
        handle = _acquire(directory, purpose, lock_name)
        with _GUARD:
            _HELD[key] = held = [handle, 1]
    try:
        yield
    finally:
        with _GUARD:
            held[1] -= 1
            last = held[1] == 0
            if last:
                del _HELD[key]
        if last:
            _release(held[0])


def _acquire(directory: str, purpose: str, lock_name: str) -> Any:
    path = os.path.join(directory, lock_name)
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release
    deadline = time.monotonic() + wait_seconds()
    while True:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = _read_holder(handle)
                handle.close()
                raise DirectoryLockedError(directory, holder, purpose) from None
            time.sleep(_POLL_SECS)
        except OSError:
            handle.close()
            raise
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
