"""Running part of a pipeline ahead on threads, with clean shutdown.

`BackgroundIterator` drains an iterator on a daemon thread into a bounded
queue (the engine of `prefetch`, of parallel file reads and of parallel
`interleave`); `prefetched_when_costly` starts one only once the input proves to cost more
than the handoff. `parallel_map` applies a function on a thread pool, keeping
input order unless told otherwise. Closing the consumer (breaking out of a
loop, garbage collection, `close()`) stops the threads and joins them.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent import futures
from typing import Any

_ITEM, _END, _ERROR = 0, 1, 2
_POLL_S = 0.05


def default_parallelism() -> int:
    """Threads used for AUTOTUNE parallelism: the number of CPUs."""
    return max(1, os.cpu_count() or 1)


class BackgroundIterator:
    """Iterates `make_iterator()` on a daemon thread, `depth` items ahead.

    Exceptions raised by the producer are re-raised in the consumer. `close()`
    (also called when exhausted or garbage collected) stops and joins the thread.
    """

    def __init__(self, make_iterator: Callable[[], Iterable], depth: int,
                 name: str = "tf.data-prefetch"):
        self._queue: queue.Queue = queue.Queue(maxsize=max(1, depth))
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(
            target=self._produce, args=(make_iterator,), name=name, daemon=True
        )
        self._thread.start()

    def _put(self, item: tuple) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self, make_iterator: Callable[[], Iterable]) -> None:
        it = None
        try:
            it = iter(make_iterator())
            for item in it:
                if not self._put((_ITEM, item)):
                    return
            self._put((_END, None))
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            self._put((_ERROR, e))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()

    def ready(self) -> bool:
        """True when the next item is already available."""
        return not self._queue.empty()

    def __iter__(self) -> BackgroundIterator:
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        kind, item = self._queue.get()
        if kind == _ITEM:
            return item
        self.close()
        if kind == _ERROR:
            raise item
        raise StopIteration

    def close(self) -> None:
        """Stops the producer thread and waits for it to finish."""
        if self._done:
            return
        self._done = True
        self._stop.set()
        while self._thread.is_alive():
            try:  # unblock a producer waiting on a full queue
                while True:
                    self._queue.get_nowait()
            except queue.Empty:
                pass
            self._thread.join(_POLL_S)
        try:
            while True:
                self._queue.get_nowait()
        except queue.Empty:
            pass

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def prefetched(make_iterator: Callable[[], Iterable], depth: int) -> Iterator:
    """A generator over `make_iterator()` run ahead on a thread; closing it stops the thread."""
    it = BackgroundIterator(make_iterator, depth)
    try:
        yield from it
    finally:
        it.close()


#: The mean time an element may take to produce and still be produced in the consumer's thread
#: by `prefetched_when_costly`. Handing an element from a thread costs about as much: a wakeup,
#: and the GIL passed back and forth each time the consumer's torch ops release it.
COSTLY_ELEMENT_S = 50e-6
#: Elements timed per look at an input's cost (`prefetched_when_costly`).
COST_WINDOW = 16


def prefetched_when_costly(make_iterator: Callable[[], Iterable], depth: int) -> Iterator:
    """`prefetched(make_iterator, depth)` from the first window of `COST_WINDOW` elements whose
    production took more than `COSTLY_ELEMENT_S` each on average; until then the elements are
    produced in the consumer's thread and timed (the first one, which carries a pass's setup --
    opening files, filling a shuffle buffer -- is not). An input whose elements cost
    microseconds (in-memory slices and batches) is faster without a thread: under the GIL a
    thread overlaps only what releases it, and each handoff costs more than producing the
    element. Closing the generator closes the input (and stops the thread, once there is one)."""
    it = iter(make_iterator())
    try:
        try:
            first = next(it)
        except StopIteration:
            return
        yield first
        clock = time.perf_counter
        budget = COSTLY_ELEMENT_S * COST_WINDOW
        while True:
            spent = 0.0
            for _ in range(COST_WINDOW):
                start = clock()
                try:
                    item = next(it)
                except StopIteration:
                    return
                spent += clock() - start
                yield item
            if spent > budget:
                break
        yield from prefetched(lambda: it, depth)
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            close()


def parallel_map(fn: Callable[[Any], Any], items: Iterator, workers: int,
                 deterministic: bool = True) -> Iterator:
    """Yields `fn(item)` for each item, computed on `workers` threads.

    Keeps input order when `deterministic`; otherwise yields results as they finish.
    At most `2 * workers` calls are in flight.
    """
    pool = futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tf.data-map")
    pending: deque = deque()
    window = 2 * workers
    try:
        if deterministic:
            for item in items:
                pending.append(pool.submit(fn, item))
                if len(pending) >= window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        else:
            running: set = set()
            for item in items:
                running.add(pool.submit(fn, item))
                if len(running) >= window:
                    done, running = futures.wait(running, return_when=futures.FIRST_COMPLETED)
                    for f in done:
                        yield f.result()
            while running:
                done, running = futures.wait(running, return_when=futures.FIRST_COMPLETED)
                for f in done:
                    yield f.result()
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
