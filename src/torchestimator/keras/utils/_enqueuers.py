"""Keras 2.15's enqueuers (`keras/utils/data_utils.py`): `SequenceEnqueuer`,
`OrderedEnqueuer` and `GeneratorEnqueuer`, and `ordered_batches`, the parallel reader
`fit`/`evaluate`/`predict` use for a `Sequence` with `workers > 1` (or
`use_multiprocessing`).

Workers are a thread pool, or with `use_multiprocessing=True` a process pool
(`concurrent.futures.ProcessPoolExecutor`): each process receives a pickled copy of the
Sequence when the pool starts, one pool per epoch, so that changes made by
`on_epoch_end` reach the workers (as Keras re-sends the Sequence each epoch). Batches come
back in the order of their indices whatever the worker that read them; at most
`max_queue_size` are read ahead. A worker process makes TF's tensors on the host (a host scope,
as for a `tf.data` function): a process forked from one that uses CUDA cannot use CUDA.
"""

from __future__ import annotations

import collections
import concurrent.futures
import multiprocessing
import os
import pickle
import queue
import random
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from torchestimator._engine import device_scope

__all__ = ["GeneratorEnqueuer", "OrderedEnqueuer", "SequenceEnqueuer", "ordered_batches"]

# The object a worker process reads from: set by the pool's initializer.
_WORKER_SOURCE: Any = None
_END = "__torchestimator_generator_end__"


def _pickled(sequence: Any) -> bytes:
    """The Sequence pickled for worker processes; a clear TypeError when it cannot be."""
    try:
        return pickle.dumps(sequence)
    except Exception as e:  # PicklingError, TypeError, AttributeError (local classes)
        raise TypeError(
            f"use_multiprocessing=True needs a picklable Sequence, but "
            f"{type(sequence).__name__} could not be pickled ({type(e).__name__}: {e}). "
            "Define the Sequence class at module level and keep no open files, locks or "
            "lambdas in its attributes, or pass use_multiprocessing=False to read batches in "
            "threads."
        ) from e


def _on_host_in_this_process() -> None:
    """A worker process's TF ops make their tensors on the host, for good: it is forked, and a
    process forked from one that has used CUDA cannot use CUDA ('Cannot re-initialize CUDA in
    forked subprocess'); TensorFlow runs such input code on the CPU too."""
    device_scope.HOST.depth += 1


def _init_sequence_worker(payload: bytes) -> None:
    global _WORKER_SOURCE
    _on_host_in_this_process()
    _WORKER_SOURCE = pickle.loads(payload)  # the parent's own pickle of its Sequence


def _sequence_item(index: int) -> Any:
    return _WORKER_SOURCE[index]


def _sequence_executor(sequence: Any, workers: int,
                       use_multiprocessing: bool) -> tuple[concurrent.futures.Executor, Any]:
    """A pool of `workers` and the function that reads item `i` in it."""
    if use_multiprocessing:
        executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=max(1, workers), initializer=_init_sequence_worker,
            initargs=(_pickled(sequence),))
        return executor, _sequence_item
    return concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)), sequence.__getitem__


def ordered_batches(sequence: Any, indices: Iterable[int], workers: int = 1,
                    use_multiprocessing: bool = False, max_queue_size: int = 10) -> Iterator[Any]:
    """Yields `sequence[i]` for each `i` of `indices`, in that order, read by `workers`
    threads (or processes with `use_multiprocessing`), at most `max_queue_size` ahead
    (unbounded when `max_queue_size <= 0`). Closing the iterator cancels the reads not
    started and waits for the running ones."""
    indices = list(indices)
    if not indices:
        return
    ahead = max_queue_size if max_queue_size and max_queue_size > 0 else len(indices)
    executor, read = _sequence_executor(sequence, workers, use_multiprocessing)
    pending: collections.deque = collections.deque()
    try:
        remaining = iter(indices)
        for index in remaining:
            pending.append(executor.submit(read, index))
            if len(pending) >= ahead:
                break
        while pending:
            result = pending.popleft().result()
            for index in remaining:
                pending.append(executor.submit(read, index))
                break
            yield result
    finally:
        for future in pending:
            future.cancel()
        executor.shutdown(wait=True, cancel_futures=True)


class SequenceEnqueuer:
    """Base class to enqueue inputs.

    The task of an Enqueuer is to use parallelism to speed up preprocessing. This is done
    with processes or threads.

    Example:

    ```python
    enqueuer = SequenceEnqueuer(...)
    enqueuer.start()
    datas = enqueuer.get()
    for data in datas:
        # Use the inputs; training, evaluating, predicting.
        # ... stop sometime.
    enqueuer.stop()
    ```

    The `enqueuer.get()` should be an infinite stream of data.
    """

    def __init__(self, sequence: Any, use_multiprocessing: bool = False):
        self.sequence = sequence
        self.use_multiprocessing = use_multiprocessing
        self.workers = 0
        self.queue: queue.Queue | None = None
        self.run_thread: threading.Thread | None = None
        self.stop_signal: threading.Event | None = None

    def is_running(self) -> bool:
        """Whether the enqueuer was started and not stopped."""
        return self.stop_signal is not None and not self.stop_signal.is_set()

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        """Starts the handler's workers.

        Args:
            workers: Number of workers.
            max_queue_size: queue size (when full, workers could block on `put()`).
        """
        if self.use_multiprocessing:
            self._check_multiprocessing()
        self.workers = workers
        self.queue = queue.Queue(max_queue_size)
        self.stop_signal = threading.Event()
        self.run_thread = threading.Thread(target=self._run, daemon=True)
        self.run_thread.start()

    def _check_multiprocessing(self) -> None:
        """Raises a clear error before starting when processes cannot be used."""

    def stop(self, timeout: float | None = None) -> None:
        """Stops running threads and waits for them to exit, if necessary.

        Should be called by the same thread which called `start()`.

        Args:
            timeout: maximum time to wait on `thread.join()`
        """
        if self.stop_signal is None:
            return
        self.stop_signal.set()
        with self.queue.mutex:
            self.queue.queue.clear()
            self.queue.unfinished_tasks = 0
            self.queue.not_full.notify_all()
            self.queue.all_tasks_done.notify_all()
        if self.run_thread is not None and self.run_thread is not threading.current_thread():
            self.run_thread.join(timeout)

    def __del__(self) -> None:
        if self.is_running():
            self.stop()

    def _put(self, item: Any) -> bool:
        """Puts `item` in the queue, waiting for room; False once stopped."""
        while not self.stop_signal.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        """Submits request to the executor and queue the `Future` objects."""
        raise NotImplementedError

    def get(self) -> Iterator[Any]:
        """Creates a generator to extract data from the queue; skips the data if it is
        `None`. Yields tuples `(inputs, targets)` or `(inputs, targets, sample_weights)`."""
        raise NotImplementedError


class OrderedEnqueuer(SequenceEnqueuer):
    """Builds an Enqueuer from a Sequence.

    Args:
        sequence: A `tf.keras.utils.data_utils.Sequence` object.
        use_multiprocessing: use multiprocessing if True, otherwise threading (the Sequence
            must then be picklable).
        shuffle: whether to shuffle the data at the beginning of each epoch.

    `get()` yields the Sequence's batches epoch after epoch, each epoch in index order (or
    a new random order with `shuffle`); `on_epoch_end` is called once all of an epoch's
    batches were taken from the queue.
    """

    def __init__(self, sequence: Any, use_multiprocessing: bool = False, shuffle: bool = False):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle

    def _check_multiprocessing(self) -> None:
        _pickled(self.sequence)

    def _wait_queue(self) -> None:
        """Wait for the queue to be empty (every batch taken by `get`)."""
        with self.queue.all_tasks_done:
            while self.queue.unfinished_tasks and not self.stop_signal.is_set():
                self.queue.all_tasks_done.wait(0.1)

    def _run(self) -> None:
        """Reads each epoch's batches into the queue, then calls `on_epoch_end`."""
        order = list(range(len(self.sequence)))
        while not self.stop_signal.is_set():
            if self.shuffle:
                random.shuffle(order)
            batches = ordered_batches(self.sequence, order, self.workers,
                                      self.use_multiprocessing, self.queue.maxsize)
            try:
                for batch in batches:
                    if not self._put((batch, None)):
                        return
            except Exception as e:  # handed to the reader: `get` raises it
                self._put((None, e))
                return
            finally:
                batches.close()
            self._wait_queue()
            if self.stop_signal.is_set():
                return
            self.sequence.on_epoch_end()

    def get(self) -> Iterator[Any]:
        """Creates a generator to extract data from the queue; skips the data if it is
        `None`. Yields the next batch, a tuple `(inputs, targets)` or
        `(inputs, targets, sample_weights)`."""
        while self.is_running():
            try:
                inputs, error = self.queue.get(block=True, timeout=0.1)
            except queue.Empty:
                continue
            if error is not None:
                self.stop()
                raise error
            if self.is_running():
                try:
                    self.queue.task_done()
                except ValueError:  # stopped meanwhile: the queue was reset
                    pass
            if inputs is not None:
                yield inputs


def _init_generator_worker(generator: Any, random_seed: int | None) -> None:
    global _WORKER_SOURCE
    _on_host_in_this_process()
    _WORKER_SOURCE = generator
    if random_seed is not None:
        seed = (random_seed + os.getpid()) % (2**32)
        np.random.seed(seed)
        random.seed(seed)


def _next_sample(generator: Any = None) -> Any:
    try:
        return next(_WORKER_SOURCE if generator is None else generator)
    except StopIteration:
        return _END


class GeneratorEnqueuer(SequenceEnqueuer):
    """Builds a queue out of a data generator.

    The provided generator can be finite in which case the class will throw a
    `StopIteration` exception.

    Args:
        generator: a generator function which yields data.
        use_multiprocessing: use multiprocessing if True, otherwise threading. Each process
            works on its own copy of the generator (forked), as in Keras: they yield the
            same data unless it depends on the (per-process) random seed.
        random_seed: Initial seed for workers, will be incremented by one for each worker.

    With threads and `workers > 1` the generator must be thread-safe.
    """

    def __init__(self, generator: Any, use_multiprocessing: bool = False,
                 random_seed: int | None = None):
        super().__init__(generator, use_multiprocessing)
        self.random_seed = random_seed

    def _check_multiprocessing(self) -> None:
        if "fork" not in multiprocessing.get_all_start_methods():
            raise ValueError(
                "GeneratorEnqueuer(use_multiprocessing=True) copies the generator into worker "
                "processes by forking, which this platform does not support; use "
                "use_multiprocessing=False or a keras.utils.Sequence."
            )

    def _run(self) -> None:
        """Submits `next(generator)` requests and queues their futures."""
        if self.use_multiprocessing:
            executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=max(1, self.workers), mp_context=multiprocessing.get_context("fork"),
                initializer=_init_generator_worker, initargs=(self.sequence, self.random_seed))
            call = (_next_sample,)
        else:
            executor = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, self.workers))
            call = (_next_sample, self.sequence)
        with executor:
            while not self.stop_signal.is_set():
                if not self._put(executor.submit(*call)):
                    break
            executor.shutdown(wait=False, cancel_futures=True)

    def get(self) -> Iterator[Any]:
        """Creates a generator to extract data from the queue; skips the data if it is
        `None`. Yields the next element, a tuple `(inputs, targets)` or
        `(inputs, targets, sample_weights)`; ends when the generator is exhausted."""
        while self.is_running():
            try:
                future = self.queue.get(block=True, timeout=0.1)
            except queue.Empty:
                continue
            try:
                inputs = future.result()
            except concurrent.futures.CancelledError:
                continue
            except Exception as e:
                self.stop()
                if "generator already executing" in str(e):
                    raise RuntimeError(
                        "Your generator is NOT thread-safe. Keras requires a thread-safe "
                        "generator when `use_multiprocessing=False, workers > 1`. "
                    ) from e
                raise
            self.queue.task_done()
            if _is_end(inputs):
                yield from self._last_ones()
                return
            if inputs is not None:
                yield inputs

    def _last_ones(self) -> Iterator[Any]:
        """The generator ended: stop submitting, and yield what the reads already queued
        produced (Keras's `last_ones`)."""
        self.stop_signal.set()
        futures = []
        while True:
            try:
                futures.append(self.queue.get_nowait())
            except queue.Empty:
                break
        self.stop()
        for future in futures:
            try:
                inputs = future.result()
            except (concurrent.futures.CancelledError, Exception):
                continue
            if inputs is not None and not _is_end(inputs):
                yield inputs


def _is_end(value: Any) -> bool:
    return isinstance(value, str) and value == _END
