"""`tf.train.Coordinator`: a coordinator for Python threads (request_stop / should_stop / join)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

from torchestimator import errors


class Coordinator:
    """A coordinator for threads, as TF 2.15: threads poll `should_stop()`; any of them (or the
    main thread) calls `request_stop(ex=None)`; `join(threads)` waits for them and re-raises
    the first exception reported. `clean_stop_exception_types` (default `(OutOfRangeError,)`)
    stop without being re-raised."""

    def __init__(self, clean_stop_exception_types: tuple | None = None) -> None:
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info: Any = None
        self._registered: set[threading.Thread] = set()
        self._joined = False

    def request_stop(self, ex: Any = None) -> None:
        """Requests that the threads stop; `ex` (an exception or exc_info tuple) is re-raised by
        `join()` unless it is a clean-stop type."""
        with self._lock:
            if ex is not None and self._exc_info is None:
                if isinstance(ex, tuple):
                    info = ex
                else:
                    info = (type(ex), ex, ex.__traceback__)
                if not issubclass(info[0], self._clean):
                    self._exc_info = info
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop flag (and the recorded exception)."""
        with self._lock:
            self._joined = False
            self._exc_info = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        """True if a stop was requested."""
        return self._stop_event.is_set()

    def stop_on_exception(self) -> Any:
        """Context manager: an exception raised in its body requests a stop with it."""
        coord = self

        class _Ctx:
            def __enter__(self) -> None:
                return None

            def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
                if exc_type is not None:
                    coord.request_stop((exc_type, exc, tb))
                    return True
                return False

        return _Ctx()

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Waits until a stop is requested (or `timeout` seconds); returns `should_stop()`."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        """Registers a thread for `join()`."""
        with self._lock:
            self._registered.add(thread)

    def join(self, threads: Iterable[threading.Thread] | None = None,
             stop_grace_period_secs: float = 120, ignore_live_threads: bool = False) -> None:
        """Waits for `threads` (and the registered ones) to end; re-raises a reported exception.

        Raises:
          RuntimeError: threads still run `stop_grace_period_secs` after the stop request
            (unless `ignore_live_threads`).
        """
        threads = set(threads or ()) | self._registered
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.01):
            pass
        deadline = time.time() + stop_grace_period_secs
        while any(t.is_alive() for t in threads) and time.time() < deadline:
            time.sleep(0.01)
        self._joined = True
        self._registered = set()
        if self._exc_info:
            raise self._exc_info[1].with_traceback(self._exc_info[2])
        alive = [t.name for t in threads if t.is_alive()]
        if alive and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(alive)}")

    @property
    def joined(self) -> bool:
        """True once `join()` returned."""
        return self._joined

    def raise_requested_exception(self) -> None:
        """Re-raises the exception passed to `request_stop`, if any."""
        if self._exc_info:
            raise self._exc_info[1].with_traceback(self._exc_info[2])


