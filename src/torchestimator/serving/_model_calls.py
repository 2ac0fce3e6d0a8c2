"""A request's model calls, apart from where they run: on the request's thread, or awaited
on an event loop.

The REST and gRPC handlers are written once, as generators: each time one needs
a signature run it yields a `ModelCall` and gets the outputs back (or the
call's error raised where it yielded). `run_steps` answers those calls on the
calling thread (with `--enable_batching` the thread waits there for its batch);
`run_steps_async` awaits them on the running event loop: a batched call waits
for its batch without holding a thread (`Batcher.submit`), and a call that
cannot be batched, or any call without a batcher, goes to `run_alone` (the
REST app and the gRPC server run it on a worker thread).

A signature's ValueError, TypeError or KeyError (values the model rejects)
reaches the handler as a 400 `RequestError` naming what is wrong.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any, NamedTuple

from torchestimator.serving._errors import RequestError
from torchestimator.serving._fast_call import fast_call

Steps = Generator["ModelCall", Any, Any]


class ModelCall(NamedTuple):
    """One signature run a handler asks for: `signature` (named `signature_name`, of
    `servable`) on `inputs` (name -> batch-first array; with `features`, parsed-feature
    columns for `call_on_features`), to finish by `deadline` (`time.monotonic()`, or None)."""

    servable: Any
    signature_name: str
    signature: Any
    inputs: Mapping[str, Any]
    deadline: float | None
    features: bool = False


def check_deadline(deadline: float | None) -> None:
    """A 504 RequestError once `deadline` (time.monotonic) has passed: the client has been
    answered 504 already, so the request's remaining work is skipped."""
    if deadline is not None and time.monotonic() > deadline:
        raise RequestError("Request timed out (--rest_api_timeout_in_ms); its work was stopped",
                           504)


def error_message(error: BaseException) -> str:
    """The text of a signature's error, as a client reads it (a KeyError's key unquoted)."""
    text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    return text or type(error).__name__


def call_signature(signature: Any, inputs: Mapping[str, Any],
                   features: bool = False) -> Mapping[str, Any]:
    """The signature's outputs for `inputs` (a request, or a batch of them): one plain
    serialized Example takes the batch-1 fast path (`fast_call`), anything else the
    signature's general path; with `features`, `call_on_features`. Raises what the
    signature raises."""
    if features:
        return signature.call_on_features(inputs)
    outputs = fast_call(signature, inputs)  # (None: not one plain Example)
    return signature(**inputs) if outputs is None else outputs


def run_call(call: ModelCall, batcher: Any = None) -> Mapping[str, Any]:
    """Runs `call` on this thread, once its deadline is checked: through `batcher` (waiting
    here for the batch) when there is one, else alone (`call_signature`). Raises a 400
    RequestError for values the model rejects."""
    check_deadline(call.deadline)
    try:
        if batcher is None:
            return call_signature(call.signature, call.inputs, call.features)
        return batcher.call(call.servable, call.signature_name, call.inputs,
                            features=call.features, deadline=call.deadline)
    except (ValueError, TypeError, KeyError) as error:
        raise RequestError(error_message(error)) from None


class _Returned(NamedTuple):
    """What a handler's generator returned (it asks for no more calls)."""

    value: Any


def _resume(steps: Steps, value: Any, error: BaseException | None,
            ran: list[str] | None) -> ModelCall | _Returned:
    """Resumes a handler's generator with its last call's outputs (`value`), or with that
    call's `error` raised where it yielded: returns its next `ModelCall` (its signature's
    name appended to `ran`, when given), or `_Returned`."""
    try:
        step = steps.send(value) if error is None else steps.throw(error)
    except StopIteration as stop:
        return _Returned(stop.value)
    if ran is not None:
        ran.append(step.signature_name)
    return step


def run_steps(steps: Steps, batcher: Any = None, ran: list[str] | None = None) -> Any:
    """Drives a handler's generator on this thread, answering each `ModelCall` with
    `run_call`; returns what the handler returns (raises what it raises). Each call's
    signature name is appended to `ran` (when given: the request's metrics label)."""
    with contextlib.closing(steps):
        step = _resume(steps, None, None, ran)
        while type(step) is not _Returned:
            try:
                outputs = run_call(step, batcher)
            except Exception as failure:  # noqa: BLE001 - raised in the handler, where it yielded
                step = _resume(steps, None, failure, ran)
            else:
                step = _resume(steps, outputs, None, ran)
        return step.value


RunAlone = Callable[[ModelCall], Awaitable[Mapping[str, Any]]]


async def run_steps_async(steps: Steps, batcher: Any, run_alone: RunAlone,
                          ran: list[str] | None = None) -> Any:
    """Drives a handler's generator on the running event loop: a call the batcher takes is
    awaited without holding a thread (`Batcher.submit`); any other goes to `run_alone`.
    Returns what the handler returns (raises what it raises). The handler's own work runs
    on the loop: give it small requests only. Each call's signature name is appended to
    `ran`, as `run_steps` does."""
    with contextlib.closing(steps):
        step = _resume(steps, None, None, ran)
        while type(step) is not _Returned:
            try:
                outputs = await _run_on_loop(step, batcher, run_alone)
            except Exception as failure:  # noqa: BLE001 - raised in the handler, where it yielded
                step = _resume(steps, None, failure, ran)
            else:
                step = _resume(steps, outputs, None, ran)
        return step.value


async def _run_on_loop(call: ModelCall, batcher: Any, run_alone: RunAlone) -> Mapping[str, Any]:
    """The outputs of `call`: awaited from its batch, or from `run_alone`."""
    future = None
    if batcher is not None:
        check_deadline(call.deadline)
        future = batcher.submit(call.servable, call.signature_name, call.inputs,
                                features=call.features, deadline=call.deadline)
    try:
        return await (run_alone(call) if future is None else future)
    except (ValueError, TypeError, KeyError) as error:
        raise RequestError(error_message(error)) from None
