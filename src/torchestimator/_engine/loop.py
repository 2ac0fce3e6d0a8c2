"""The one training loop behind Keras `fit` and `Estimator.train` (and their evaluate/predict).

A front (Keras' Trainer, the Estimator) supplies:
  * a `step_fn(batch) -> outputs` (forward, loss, and for training `optimize`),
  * the batches (any iterable; they are moved to the device here),
  * a `StepEvents` object whose hooks run around each step (Keras callbacks or
    Estimator hooks, checkpoint and summary triggers are built on these).

The loop never reads a value back from the device by itself: only the events
that need a number (a progress bar, a logging hook) synchronise. A Ctrl-C arrives
between steps, never inside one (`interrupts.py`). `run_steps` runs the loop to its end;
`iterate_steps` is the same loop as a generator of each step's outputs (predict).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

import numpy as np
import torch
from torch._lazy import ts_backend

from torchestimator._engine import host_twins
from torchestimator._engine.backward import backward
from torchestimator._engine.device_scope import _SCOPES, HOST, scoped_device
from torchestimator._engine.interrupts import StepGuard, interrupts_between_steps
from torchestimator._engine.packed_columns import packed_matrix

_DONE = object()  # what the loop's generator gives when it has ended

# Deferred value checks (a label out of range, a NaN label or loss on an accelerator) are read
# back on the first step, then every this many steps, and when the loop ends; the hooks flush
# them too where they read values back anyway (a log line) and before a checkpoint is written.
CHECK_EVERY_N_STEPS = 100
# Tests set this to make the CPU behave as an accelerator does (checks deferred, not read back).
DEFER_CHECKS_ON_CPU = False
# Benchmarks and tests set this to make `to_device` to the CPU stand in for a copy to an
# accelerator: small tensors are copied (with numpy, no torch op) and keep their source as their
# host twin (`host_twins`), so that value checks read the host as they would there.
TWIN_HOST_TENSORS_ON_CPU = False
# The kept states of one deferred check are folded into one when this many are kept.
_FOLD_AT = 64
_deferred = threading.local()


def default_device() -> torch.device:
    """The device training runs on: the innermost open `tf.device` block's (e.g. `with
    tf.device('/CPU:0'): model.fit(...)`), else `$TORCHESTIMATOR_DEVICE` if set, else CUDA when
    available, else CPU."""
    scoped = scoped_device()
    if scoped is not None:
        return scoped
    name = os.environ.get("TORCHESTIMATOR_DEVICE")
    if name:
        device = torch.device(name)
        if device.type == "lazy" and not _LAZY_READY:
            _ready_lazy_backend()
        return _indexed(device)
    return _indexed(torch.device("cuda")) if torch.cuda.is_available() else torch.device("cpu")


def _indexed(device: torch.device) -> torch.device:
    """`cuda` as `cuda:<this process's current GPU>`, so that the device compares equal to the
    devices of the tensors made on it (torch gives them an index); other devices as they are.
    Before CUDA is initialised the current GPU is the first: asking would initialise it (which a
    worker process forked from a CUDA process must not do)."""
    if device.type == "cuda" and device.index is None and torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device() if torch.cuda.is_initialized() else 0)
    return device


_LAZY_READY: list[bool] = []
_OP_DEVICES: dict[str | None, torch.device | None] = {}


def op_device() -> torch.device | None:
    """Where TF's tensor-making ops (`tf.constant`, `tf.convert_to_tensor` of Python or numpy
    values, `tf.zeros`, `tf.range`, `tf.random.normal`, ...) put the tensors they make, as TF
    places ops on the GPU when there is one: the default device when it is an accelerator. None
    -- torch's default device, the CPU unless a `tf.device` block chose another -- inside a
    `tf.device` block, in a host scope (`device_scope.on_host`: `tf.data` functions, an
    `input_fn`), and where the default device is the CPU."""
    if _SCOPES.stack or HOST.depth:
        return None
    name = os.environ.get("TORCHESTIMATOR_DEVICE")
    try:
        return _OP_DEVICES[name]
    except KeyError:
        device = default_device()
        _OP_DEVICES[name] = None if device.type in ("cpu", "meta") else device
        return _OP_DEVICES[name]


def forget_op_device() -> None:
    """Forgets where `op_device` put tensors, after this process's current GPU changed (a
    distributed run sets each process's own GPU when it joins its group)."""
    _OP_DEVICES.clear()


def _ready_lazy_backend() -> None:
    """Initialises torch's lazy TorchScript backend, once: `TORCHESTIMATOR_DEVICE=lazy:0` (the
    test suite's stand-in for a GPU on a CPU-only machine) is then a usable device in any
    process, the subprocesses of a test included."""
    ts_backend.init()
    _LAZY_READY.append(True)


def to_device(value: Any, device: torch.device, non_blocking: bool = True,
              host_keys: frozenset = frozenset()) -> Any:
    """Moves every tensor in a nested structure to `device` (numpy numeric arrays become tensors;
    string arrays stay numpy), each once. To a CUDA device a host tensor is copied from pinned
    memory without blocking (pinning is skipped for the CPU and other devices). Entries of a
    dict under a key in `host_keys` stay where they are (features the columns read on the host)."""
    if isinstance(value, torch.Tensor):
        if value.device == device:
            if TWIN_HOST_TENSORS_ON_CPU and device.type == "cpu":
                return host_twins.stand_in_copy(value)
            return value
        if device.type == "cuda" and non_blocking:
            if value.device.type == "cpu" and not value.is_pinned():
                value = value.pin_memory()
            moved = value.to(device, non_blocking=True)
        else:
            moved = value.to(device)
        if value.device.type == "cpu":  # value checks of the copy read the host (`host_twins`)
            host_twins.remember(moved, value)
        return moved
    if type(value) is tuple and not TWIN_HOST_TENSORS_ON_CPU and all(
            type(v) is torch.Tensor and v.device == device for v in value):
        return value  # a batch of tensors already there (the common `(x, y)`)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OUS":
            return value
        return to_device(torch.from_numpy(np.ascontiguousarray(value)), device, non_blocking)
    if isinstance(value, dict):
        moved = _packed_columns_moved(value, device, non_blocking, host_keys) if device.type != "cpu" else {}
        return {k: moved[k] if k in moved else v if k in host_keys
                else to_device(v, device, non_blocking, host_keys) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_device(v, device, non_blocking, host_keys) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device, non_blocking, host_keys) for v in value)
    return value


def _packed_columns_moved(features: dict, device: torch.device, non_blocking: bool,
                          host_keys: frozenset) -> dict:
    """The entries of `features` that are all the columns of one host matrix (`tf.data` keeps 1-D
    numeric features of one dtype packed in a [batch, k] matrix and hands out its column views),
    moved as that matrix in one copy: {key: the device matrix's column}. The device columns are
    again the column views of one matrix, which the feature columns take without stacking."""
    groups: dict[tuple, dict[int, str]] = {}
    for key, value in features.items():
        if (type(value) is torch.Tensor and value.ndim == 1 and key not in host_keys
                and value.device.type == "cpu" and value.stride()[0] > 1 and not value.requires_grad):
            width = value.stride()[0]
            offset = value.storage_offset()
            matrix = (value.untyped_storage().data_ptr(), width, offset // width, value.shape[0], value.dtype)
            groups.setdefault(matrix, {})[offset % width] = key
    moved: dict[str, torch.Tensor] = {}
    for (_, width, _, _, _), columns in groups.items():
        if len(columns) != width:  # not every column is here: each moves on its own
            continue
        keys = [columns[j] for j in range(width)]
        matrix = packed_matrix([features[key] for key in keys])
        if matrix is None:
            continue
        matrix = to_device(matrix, device, non_blocking)
        for j, key in enumerate(keys):
            moved[key] = matrix[:, j]
    return moved


def iter_on_host(source: Iterable) -> Iterator:
    """`iter(source)`, a `tf.data.Dataset`'s elements left on the host (`Dataset._iter_on_host`;
    `iter(dataset)` puts them on the default device for a program's own loop): what the
    library's input pipelines read. They keep string and id features on the host for the
    feature columns and move each batch to the device once, in the loop."""
    on_host = getattr(source, "_iter_on_host", None)
    return on_host() if on_host is not None else iter(source)


def moved_batches(batches: Iterable, device: torch.device, host_keys: Callable[[], frozenset]) -> Iterator:
    """Yields each batch of `batches` moved to `device` (`to_device`), the features under the keys
    `host_keys()` returns at that time kept on the host."""
    for batch in batches:
        keys = host_keys()
        if keys and isinstance(batch, tuple) and len(batch) == 2 and isinstance(batch[0], dict):
            yield to_device(batch[0], device, host_keys=keys), to_device(batch[1], device)
        elif keys and isinstance(batch, dict):
            yield to_device(batch, device, host_keys=keys)
        else:
            yield to_device(batch, device)


def defers_checks(device: torch.device) -> bool:
    """Whether value checks of tensors on `device` are deferred (every device but the CPU, where
    reading a value back costs nothing): the check is recorded with `defer_check` and raises
    when `flush_deferred_checks` reads it, instead of synchronizing the step."""
    return device.type != "cpu" or DEFER_CHECKS_ON_CPU


def in_loop() -> bool:
    """Whether this thread is running the training loop (`run_steps`/`iterate_steps`), which
    reads deferred checks back; outside it a check on an accelerator reads its value at once."""
    return getattr(_deferred, "loops", 0) > 0


def deferred_here(device: torch.device) -> bool:
    """Whether a value check of a tensor on `device` is deferred here: on a device that defers
    checks (`defers_checks`), in the training loop, which reads them back (`in_loop`)."""
    return in_loop() and defers_checks(device)


def defer_check(key: Hashable, values: tuple, fold: Callable[[list[tuple]], tuple],
                verdict: Callable[..., Exception | None]) -> None:
    """Records a check of `values` (tensors on the device) without reading them back.

    Checks under the same `key` are kept until they are read back, then `fold(states)` (a
    list of `values` tuples, e.g. `fold_by(torch.amin, torch.amax)` for a running range)
    makes them one state: a step pays for its own check's kernels only (on CUDA each kernel is
    a launch), not for combining it with the last. `flush_deferred_checks` reads the folded
    state back and raises the exception that `verdict(*state_on_host)` returns (None: passed).
    """
    pending = _deferred.__dict__.setdefault("checks", {})
    entry = pending.get(key)
    values = tuple(v.detach() if v.requires_grad else v for v in values)
    if entry is None:
        pending[key] = ([values], fold, verdict)
        return
    states = entry[0]
    states.append(values)
    if len(states) >= _FOLD_AT:  # a loop that flushes seldom keeps a bounded list
        states[:] = [fold(states)]


def fold_by(*reductions: Callable[..., torch.Tensor]) -> Callable[[list[tuple]], tuple]:
    """A `defer_check` fold: position i of the folded state is `reductions[i]` (e.g.
    `torch.amin`, `torch.amax`, `torch.any`, `torch.sum`) over the stacked i-th values."""

    def fold(states: list[tuple]) -> tuple:
        return tuple(reduce(torch.stack([state[i] for state in states]), dim=0)
                     for i, reduce in enumerate(reductions))

    return fold


# The `defer_check` fold of a (low, high) state: the smallest and the largest value seen (a
# NaN propagates through amin/amax, as through aminmax).
fold_range = fold_by(torch.amin, torch.amax)


def check_value_range(values: torch.Tensor, key: Hashable,
                      verdict: Callable[[Any, Any], Exception | None]) -> bool:
    """Checks the smallest and the largest of `values` (ids or labels on a device that defers
    checks, where a bad one would reach a kernel that asserts on the device) with
    `verdict(low, high)`, which gets them on the host (0-d tensors or numpy scalars: it reads
    them with `.item()`, `int` or `float`) and returns the exception to raise or None.

    When `values` are still the very ones the loop copied from the host (`host_twins`), the
    host's are checked at once: no kernel, no read-back; returns False. Otherwise, in the
    training loop, the check is deferred (`defer_check` under `key`, a running range) and True
    is returned: the caller clamps the values into range meanwhile. Outside it the range is read
    back at once and the exception raised at once; returns False.
    """
    on_host = host_twins.host_values(values)
    if on_host is not None and on_host.size:
        error = verdict(on_host.min(), on_host.max())  # numpy's min and max propagate a NaN
        if error is not None:
            raise error
        return False
    low, high = torch.aminmax(values.detach() if values.requires_grad else values)
    if in_loop():
        defer_check(key, (low, high), fold_range, verdict)
        return True
    error = verdict(low.cpu(), high.cpu())
    if error is not None:
        raise error
    return False


def flush_deferred_checks() -> None:
    """Reads back the checks recorded with `defer_check` on this thread (one synchronization)
    and raises the first failure; does nothing (and does not synchronize) when none is pending."""
    pending = getattr(_deferred, "checks", None)
    if not pending:
        return
    _deferred.checks = {}
    for states, fold, verdict in pending.values():
        state = states[0] if len(states) == 1 else fold(states)
        error = verdict(*(v.cpu() for v in state))
        if error is not None:
            raise error


def discard_deferred_checks() -> None:
    """Forgets the pending deferred checks of this thread (after a failure was already raised)."""
    _deferred.checks = {}


class StepEvents:
    """Hooks around each step of `run_steps`. Subclasses override what they need.

    `before_step(step)` runs before the step (step counts from 0 within this
    run); `after_step(step, outputs)` runs after it and returns True to stop.
    """

    def before_step(self, step: int) -> None:
        """Called before step `step`."""

    def after_step(self, step: int, outputs: Any) -> bool:
        """Called after step `step` with the step's outputs; returns True to stop the loop."""
        return False


def _loop(
    step_fn: Callable[[Any], Any],
    batches: Iterable,
    events: StepEvents,
    max_steps: int | None,
    device: torch.device | None,
    guard: StepGuard,
) -> Iterator[Any]:
    """The loop itself, as a generator of each step's outputs; the caller holds the SIGINT
    handler of `guard` and sets the grad mode (`run_steps` for the whole loop, `iterate_steps`
    around each step)."""
    if max_steps is not None and max_steps <= 0:
        return
    before_step, after_step = events.before_step, events.after_step
    iterator = iter(batches)
    step = 0
    _deferred.loops = getattr(_deferred, "loops", 0) + 1
    try:
        while True:
            try:
                batch = next(iterator)
            except StopIteration:
                flush_deferred_checks()
                return
            if device is not None:
                batch = to_device(batch, device)
            guard.in_step = True  # Ctrl-C from here waits for the step and its events to end
            before_step(step)
            outputs = step_fn(batch)
            if step % CHECK_EVERY_N_STEPS == 0 and getattr(_deferred, "checks", None):
                flush_deferred_checks()
            stop = after_step(step, outputs)
            step += 1
            guard.end_step()
            last = stop or (max_steps is not None and step >= max_steps)
            if last and getattr(_deferred, "checks", None):
                flush_deferred_checks()
            _deferred.loops -= 1  # the consumer's code (predict's caller) runs outside the loop:
            try:  # its checks read back at once, not deferred into a loop that may never read them
                yield outputs
            finally:
                _deferred.loops += 1
            if last:
                return
    except BaseException:
        discard_deferred_checks()  # checks of the failed run do not surface in a later one
        raise
    finally:
        _deferred.loops -= 1


def run_steps(
    step_fn: Callable[[Any], Any],
    batches: Iterable,
    events: StepEvents | None = None,
    max_steps: int | None = None,
    device: torch.device | None = None,
    grad_enabled: bool = True,
) -> int:
    """Runs `step_fn` on each batch (moved to `device`) until the batches run out,
    `max_steps` steps were made, or an event asks to stop. Returns the number of steps made."""
    steps = 0
    if max_steps is not None and max_steps <= 0:
        return 0
    # `torch.set_grad_enabled` as a context, without building one when the mode is already
    # right (fit calls this every epoch); the caller's mode is back afterwards either way
    caller_mode = torch.is_grad_enabled()
    if caller_mode != grad_enabled:
        torch.set_grad_enabled(grad_enabled)
    try:
        with interrupts_between_steps() as guard:
            for _ in _loop(step_fn, batches, events or StepEvents(), max_steps, device, guard):
                steps += 1
    finally:
        if torch.is_grad_enabled() != caller_mode:
            torch.set_grad_enabled(caller_mode)
    return steps


def iterate_steps(
    step_fn: Callable[[Any], Any],
    batches: Iterable,
    events: StepEvents | None = None,
    max_steps: int | None = None,
    device: torch.device | None = None,
    grad_enabled: bool = True,
) -> Iterator[Any]:
    """`run_steps` as a generator: the same loop, yielding each step's outputs after its
    events ran; a step runs only when the consumer asks for the next value, and the loop ends
    as `run_steps` does (the outputs of the step that ended it are yielded first).

    The grad mode and the Ctrl-C guard (`interrupts.py`) are held for each step (its wait
    for input included), not while the consumer holds a value (e.g. `Estimator.predict`'s
    caller): the consumer's code runs in its own grad mode with Python's own SIGINT handling.
    """
    guard = StepGuard()
    steps = _loop(step_fn, batches, events or StepEvents(), max_steps, device, guard)
    try:
        while True:
            with torch.set_grad_enabled(grad_enabled), interrupts_between_steps(guard):
                outputs = next(steps, _DONE)
            if outputs is _DONE:
                return
            yield outputs
    finally:
        steps.close()


def optimize(loss: torch.Tensor, optimizer: Any) -> None:
    """Back-propagates `loss` and applies one optimizer step (gradients cleared afterwards)."""
    backward(loss)
    optimizer.step()
    optimizer.zero_grad()
