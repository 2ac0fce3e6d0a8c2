"""`tf.keras.utils.TimedThread`: calls `on_interval` every `interval` seconds in a thread."""

from __future__ import annotations

import abc
import logging
import threading
from typing import Any

_log = logging.getLogger(__name__)


class TimedThread:
    """Time-based interval threads: runs `on_interval()` every `interval` seconds.

    Subclass it and implement `on_interval`; start and stop it by hand
    (`start()` / `stop()`) or use it as a context manager. It can be mixed
    with `tf.keras.callbacks.Callback` to see training events too.

    Args:
        interval: the number of seconds to wait between calls to `on_interval`.
        **kwargs: passed to `threading.Thread`. The thread is a daemon thread
            unless `daemon=False` is given.
    """

    def __init__(self, interval: float, **kwargs: Any) -> None:
        self.interval = interval
        self.daemon = kwargs.pop("daemon", True)
        self.thread_kwargs = kwargs
        self.thread: threading.Thread | None = None
        self.thread_stop_event: threading.Event | None = None

    def _call_on_interval(self) -> None:
        stop_event = self.thread_stop_event
        while not stop_event.is_set():
            self.on_interval()
            stop_event.wait(self.interval)

    def start(self) -> None:
        """Creates and starts the thread (a warning, nothing else, if it already runs)."""
        if self.thread is not None and self.thread.is_alive():
            _log.warning("Thread is already running.")
            return
        self.thread_stop_event = threading.Event()
        self.thread = threading.Thread(
            target=self._call_on_interval, daemon=self.daemon, **self.thread_kwargs
        )
        self.thread.start()

    def stop(self) -> None:
        """Stops the thread: no `on_interval` call starts after this returns (one running
        finishes)."""
        if self.thread_stop_event is not None:
            self.thread_stop_event.set()

    def is_alive(self) -> bool:
        """Returns True if the thread is running, else False."""
        return self.thread is not None and self.thread.is_alive()

    def __enter__(self) -> TimedThread:
        self.start()
        return self

    def __exit__(self, *args: Any, **kwargs: Any) -> None:
        self.stop()

    @abc.abstractmethod
    def on_interval(self) -> None:
        """User-defined behaviour called in the thread every `interval` seconds."""
        raise NotImplementedError(
            "Runs every x interval seconds. Needs to be implemented in subclasses of `TimedThread`"
        )
