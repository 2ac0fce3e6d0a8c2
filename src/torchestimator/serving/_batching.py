"""Server-side request batching (`--enable_batching`, `--batching_parameters_file`).

As TF Serving's batching session (`SharedBatchScheduler` under a
`BatchingSession`): requests running the same signature of the same model
version, with inputs of the same names, dtypes and row shapes, are put in one
queue; a queue's open batch takes requests until the next one would pass
`max_batch_size` rows. A batch is run once it is full, once its first request
has waited `batch_timeout_micros`, or at once when a newer batch has opened
behind it, by one of `num_batch_threads` threads shared by every model. Its
inputs are concatenated along axis 0 (padded, by repeating the first row, up
to the next of `allowed_batch_sizes` when given), the signature runs once, and
each request gets its rows of every output whose first dimension is the
batch's.

At most `max_enqueued_batches` batches wait per queue (a batch running on a
thread is no longer queued); a request that would need one more is refused
with `BatchQueueFull` (HTTP 503, gRPC UNAVAILABLE) instead of waiting behind
an ever-growing queue. Beyond TF Serving, which refuses them: a request of
more than `max_batch_size` rows runs on its own, unbatched; and when a batch
fails (a request whose values the model rejects), each of its requests is run
again alone, so that only the faulty one gets the error.

A request answered on a thread waits with `Batcher.call(servable, signature_name,
inputs)`; one answered on an event loop (the REST app's and the gRPC server's
small requests) awaits the future `Batcher.submit(...)` returns, so that a
waiting request holds no thread: the batch thread hands each batch's answers
to the loop in one callback.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator.serving._errors import RequestError
from torchestimator.serving._json_tensor import to_numpy
from torchestimator.serving._model_calls import call_signature
from torchestimator.serving._model_config import BatchingParameters

_LOG = logging.getLogger("torchestimator.serving")


class BatchQueueFull(RequestError):
    """A request refused because its batch queue holds `max_enqueued_batches` batches already:
    HTTP 503, gRPC UNAVAILABLE (TF Serving's answer). Retry later."""

    def __init__(self, message: str):
        super().__init__(message, 503)


_TIMED_OUT = ("Request timed out (--rest_api_timeout_in_ms) while waiting for its batch; its "
              "work was stopped")


class _Task:
    """One request in a batch. A waiting thread's task has `done` (an Event); an event loop's
    has `future` (of `loop`) and the `timer` that times it out."""

    __slots__ = ("inputs", "rows", "deadline", "done", "outputs", "error", "cancelled",
                 "future", "loop", "timer")

    def __init__(self, inputs: Mapping[str, Any], rows: int, deadline: float | None,
                 future: asyncio.Future | None = None):
        self.inputs = inputs
        self.rows = rows
        self.deadline = deadline
        self.future = future
        self.loop = None if future is None else future.get_loop()
        self.done = threading.Event() if future is None else None
        self.timer: asyncio.TimerHandle | None = None
        self.outputs: Mapping[str, Any] | None = None
        self.error: BaseException | None = None
        self.cancelled = False


def _settle(tasks: list[_Task]) -> None:
    """Gives each task's future its outputs or error (on the futures' loop; a future already
    done, timed out or cancelled, is left as it is)."""
    for task in tasks:
        if task.timer is not None:
            task.timer.cancel()
        future = task.future
        if future.done():
            continue
        if task.error is not None:
            future.set_exception(task.error)
        else:
            future.set_result(task.outputs)


def _finish(tasks: list[_Task]) -> None:
    """Wakes the tasks' requests: sets a waiting thread's event; hands an event loop's tasks
    to that loop in one callback per loop."""
    loops: dict[Any, list[_Task]] = {}
    for task in tasks:
        if task.done is not None:
            task.done.set()
        else:
            loops.setdefault(task.loop, []).append(task)
    for loop, mine in loops.items():
        try:
            loop.call_soon_threadsafe(_settle, mine)
        except RuntimeError:  # the loop is closed: nobody waits for these answers
            pass


class _Batch:
    __slots__ = ("tasks", "rows", "opened")

    def __init__(self, opened: float):
        self.tasks: list[_Task] = []
        self.rows = 0
        self.opened = opened


class _Queue:
    __slots__ = ("servable", "signature_name", "signature", "features", "batches")

    def __init__(self, servable: Any, signature_name: str, signature: Any, features: bool):
        self.servable = servable
        self.signature_name = signature_name
        self.signature = signature
        self.features = features
        self.batches: deque[_Batch] = deque()


def _shape_key(inputs: Mapping[str, Any], features: bool) -> tuple[int, tuple] | None:
    """(rows, what must match for requests to share a batch), or None when `inputs` cannot be
    batched (no inputs, a scalar, inputs of different lengths)."""
    rows = None
    parts = []
    for name in sorted(inputs):
        value = inputs[name]
        if features:
            if not isinstance(value, list):
                return None
            n, part = len(value), (name,)
        else:
            if not isinstance(value, np.ndarray) or value.ndim == 0:
                return None
            n, part = value.shape[0], (name, value.dtype.str, value.shape[1:])
        if rows is None:
            rows = n
        elif n != rows:
            return None
        parts.append(part)
    if not rows:
        return None
    return rows, tuple(parts)


def _merge(tasks: list[_Task], padded: int, features: bool) -> dict[str, Any]:
    """The tasks' inputs concatenated along axis 0, padded with copies of the first row to
    `padded` rows."""
    total = sum(t.rows for t in tasks)
    merged: dict[str, Any] = {}
    for name in tasks[0].inputs:
        parts = [t.inputs[name] for t in tasks]
        if features:
            column = list(itertools.chain.from_iterable(parts))
            merged[name] = column + [column[0]] * (padded - total)
        else:
            if padded > total:
                parts.append(np.repeat(parts[0][:1], padded - total, axis=0))
            merged[name] = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    return merged


def _split(outputs: Mapping[str, Any], tasks: list[_Task], padded: int) -> None:
    """Gives each task its rows of every output whose first dimension is the batch's (an
    output of another shape goes whole to every task). Tensors are read into numpy once per
    batch (as the answers are written from numpy): a numpy slice costs a fraction of a tensor
    slice, and each request's answer no longer converts its own."""
    outputs = {key: to_numpy(value) if isinstance(value, torch.Tensor) else value
               for key, value in outputs.items()}
    start = 0
    for task in tasks:
        end = start + task.rows
        mine = {}
        for key, value in outputs.items():
            shape = getattr(value, "shape", None)
            if shape is not None and len(shape) >= 1 and shape[0] == padded:
                mine[key] = value[start:end]
            elif isinstance(value, list) and len(value) == padded:
                mine[key] = value[start:end]
            else:
                mine[key] = value
        task.outputs = mine
        start = end


def _expire(task: _Task) -> None:
    """A loop's task whose deadline passed while queued: answered 504 now, skipped by its
    batch."""
    task.cancelled = True
    if not task.future.done():
        task.future.set_exception(RequestError(_TIMED_OUT, 504))


class Batcher:
    """Joins concurrent requests to one model version and signature into one model call,
    with TF Serving's `BatchingParameters` (see the module docstring).

    `stats` counts, since start: `batches` run, `tasks` (requests) and `rows` in them,
    `padding_rows` added, `unbatched` requests run alone (too large), `queue_full` refusals.
    """

    def __init__(self, params: BatchingParameters | None = None):
        self.params = params or BatchingParameters()
        self.params.check()
        self._timeout = self.params.batch_timeout_micros / 1e6
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queues: dict[tuple, _Queue] = {}
        self._stopping = False
        self.stats = {"batches": 0, "tasks": 0, "rows": 0, "padding_rows": 0, "unbatched": 0,
                      "queue_full": 0}
        self._threads = [threading.Thread(target=self._work, daemon=True,
                                          name=f"{self.params.thread_pool_name}-{i}")
                         for i in range(self.params.num_batch_threads)]
        for thread in self._threads:
            thread.start()

    # --------------------------------------------------------------------- requests
    def submit(self, servable: Any, signature_name: str, inputs: Mapping[str, Any], *,
               features: bool = False, deadline: float | None = None) -> asyncio.Future | None:
        """`call` for a request answered on the running event loop: returns a future of
        this request's outputs (which waits without holding a thread), or None when the
        request cannot be batched (too many rows, inputs that do not stack): the caller
        runs it alone, off the loop. The future fails with what the signature raises, and
        with a 504 RequestError once `deadline` (`time.monotonic()`) passes while queued;
        `BatchQueueFull` (503) is raised at once."""
        signature = servable.signature(signature_name)
        shaped = self._batchable(inputs, features)
        if shaped is None:
            return None
        loop = asyncio.get_running_loop()
        task = _Task(inputs, shaped[0], deadline, loop.create_future())
        self._enqueue((id(servable), signature_name, features, shaped[1]), servable,
                      signature_name, signature, features, task)
        if deadline is not None:
            task.timer = loop.call_at(loop.time() + max(0.0, deadline - time.monotonic()),
                                      _expire, task)
        return task.future

    def call(self, servable: Any, signature_name: str, inputs: Mapping[str, Any], *,
             features: bool = False, deadline: float | None = None) -> Mapping[str, Any]:
        """Runs `servable`'s signature `signature_name` on `inputs` (name -> numpy array,
        batch first; with `features`, feature name -> list of per-example values for
        `call_on_features`) in a batch with other requests; returns this request's outputs.

        Raises what the signature raises; `BatchQueueFull` (503) when the queue is full; a
        504 RequestError once `deadline` (`time.monotonic()`) passes while queued.
        """
        signature = servable.signature(signature_name)
        shaped = self._batchable(inputs, features)
        if shaped is None:
            return call_signature(signature, inputs, features)
        rows, shape = shaped
        task = _Task(inputs, rows, deadline)
        self._enqueue((id(servable), signature_name, features, shape), servable, signature_name,
                      signature, features, task)
        while not task.done.wait(None if deadline is None else
                                 max(0.0, deadline - time.monotonic()) + 0.001):
            if time.monotonic() > deadline:
                task.cancelled = True
                raise RequestError(_TIMED_OUT, 504)
        if task.error is not None:
            raise task.error
        assert task.outputs is not None
        return task.outputs

    def _batchable(self, inputs: Mapping[str, Any], features: bool) -> tuple[int, tuple] | None:
        """`_shape_key` of a request the batcher takes; None (counted unbatched) for one it
        runs alone: inputs that cannot be batched, or more rows than `max_batch_size`."""
        shaped = _shape_key(inputs, features)
        if shaped is None or shaped[0] > self.params.max_batch_size:
            with self._lock:
                self.stats["unbatched"] += 1
            return None
        return shaped

    def _enqueue(self, key: tuple, servable: Any, signature_name: str, signature: Any,
                 features: bool, task: _Task) -> None:
        limit = self.params.max_batch_size
        with self._lock:
            queue = self._queues.get(key)
            if queue is None:
                queue = self._queues[key] = _Queue(servable, signature_name, signature, features)
            last = queue.batches[-1] if queue.batches else None
            if last is None or last.rows + task.rows > limit:
                if len(queue.batches) >= self.params.max_enqueued_batches:
                    self.stats["queue_full"] += 1
                    raise BatchQueueFull(
                        "The batch scheduling queue to which this task was submitted is full: "
                        f"{len(queue.batches)} batches of model {getattr(servable, 'name', '')!r} "
                        f"version {getattr(servable, 'version', '?')} signature "
                        f"{signature_name!r} are waiting (max_enqueued_batches="
                        f"{self.params.max_enqueued_batches}, --batching_parameters_file); "
                        "retry later")
                last = _Batch(time.monotonic())
                queue.batches.append(last)
            last.tasks.append(task)
            last.rows += task.rows
            self._wake.notify()

    # ---------------------------------------------------------------- batch threads
    def _ready(self, now: float) -> tuple[_Queue, _Batch] | float | None:
        """The oldest batch ready to run (removed from its queue); else when the next one
        will be (a monotonic time), or None when nothing waits."""
        best_key, best, soonest = None, None, None
        for key, queue in self._queues.items():
            batch = queue.batches[0]
            due = batch.opened + self._timeout
            if (len(queue.batches) > 1 or batch.rows >= self.params.max_batch_size
                    or now >= due or self._stopping):
                if best is None or batch.opened < best.opened:
                    best_key, best = key, batch
            elif soonest is None or due < soonest:
                soonest = due
        if best is None:
            return soonest
        queue = self._queues[best_key]
        queue.batches.popleft()
        if not queue.batches:
            del self._queues[best_key]
        return queue, best

    def _work(self) -> None:
        while True:
            with self._lock:
                while True:
                    picked = self._ready(time.monotonic())
                    if isinstance(picked, tuple):
                        break
                    if picked is None and self._stopping:
                        return
                    self._wake.wait(None if picked is None
                                    else max(0.0, picked - time.monotonic()))
            self._process(*picked)

    def _process(self, queue: _Queue, batch: _Batch) -> None:
        now = time.monotonic()
        tasks = []
        for task in batch.tasks:
            if task.cancelled or (task.future is not None and task.future.done()):
                continue  # (timed out, or its request was cancelled: a read of a flag)
            if task.deadline is not None and now > task.deadline:
                task.error = RequestError(_TIMED_OUT, 504)
                _finish([task])
                continue
            tasks.append(task)
        if not tasks:
            return
        total = sum(t.rows for t in tasks)
        padded = next((size for size in self.params.allowed_batch_sizes if size >= total), total)
        signature, features = queue.signature, queue.features
        try:
            if len(tasks) == 1 and padded == total:
                tasks[0].outputs = call_signature(signature, tasks[0].inputs, features)
            else:
                outputs = call_signature(signature, _merge(tasks, padded, features), features)
                _split(outputs, tasks, padded)
        except Exception as error:  # noqa: BLE001 - handed to the requests
            if len(tasks) == 1:
                tasks[0].error = error
            else:  # find the faulty request(s): each runs alone
                for task in tasks:
                    try:
                        task.outputs = call_signature(signature, task.inputs, features)
                    except Exception as own:  # noqa: BLE001 - handed to its request
                        task.error = own
        with self._lock:
            self.stats["batches"] += 1
            self.stats["tasks"] += len(tasks)
            self.stats["rows"] += total
            self.stats["padding_rows"] += padded - total
        _LOG.debug("Ran a batch of %d request(s), %d row(s) padded to %d, for servable version "
                   "{name: %s version: %s} signature %s", len(tasks), total, padded,
                   getattr(queue.servable, "name", ""), getattr(queue.servable, "version", "?"),
                   queue.signature_name)
        _finish(tasks)

    def stop(self) -> None:
        """Runs the batches still queued, then ends the batch threads."""
        with self._lock:
            self._stopping = True
            self._wake.notify_all()
        for thread in self._threads:
            thread.join(timeout=10)
