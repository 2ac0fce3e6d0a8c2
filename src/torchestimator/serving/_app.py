"""The ASGI application: reads a request, answers it off the event loop with `RestApi`.

A plain ASGI callable (served by Uvicorn; mountable in any ASGI framework).
The body is read up to `max_body_bytes` (413 past it, before reading more) and
within `body_timeout_seconds` (408 past it); the JSON work and the model run
in a thread pool, so one slow request never holds up the others;
`timeout_seconds` bounds how long a client waits (TF Serving's
`--rest_api_timeout_in_ms`): the request's work stops at its next step, and a
request whose time ran out while queued is dropped without running. A small
request of a kind measured cheap (`_inline`) is answered on the event loop
itself: a hop to a worker thread and back costs more than such a request, and
the interpreter lock serializes them anyway. With a batcher, a small request
is read and answered on the loop and waits for its batch there, holding no
thread (`RestApi.handle_async`); the model runs on the batch threads.

At most `max_queue` requests wait or run at once; past that a request is
answered 503 at once rather than queued behind the others. Requests whose
body is over `LARGE_BODY_BYTES` run on a thread of their own, one at a time
(at most `MAX_LARGE_QUEUE` queued), so that a few huge requests never delay
the small ones. See `_limits` for every limit, its default and its flag.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from torchestimator.serving._errors import RequestError
from torchestimator.serving._inline import (  # noqa: F401 - INLINE_CPU_SECONDS: read by tests
    INLINE_BODY_BYTES,
    INLINE_CPU_SECONDS,
    InlineCosts,
)
from torchestimator.serving._limits import (
    DEFAULT_BODY_TIMEOUT_SECONDS,
    DEFAULT_MAX_QUEUE,
    LARGE_BODY_BYTES,
    MAX_LARGE_QUEUE,
)
from torchestimator.serving._model_calls import ModelCall, run_call
from torchestimator.serving._monitoring import SIGNATURES_RUN
from torchestimator.serving._rest import RestApi

_LOG = logging.getLogger("torchestimator.serving")
_JSON_HEADERS = [(b"content-type", b"application/json")]
_CLOSE = (b"connection", b"close")
_TIMEOUT = getattr(asyncio, "timeout", None)  # Python 3.11+: a timeout without a task


def _error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode("utf-8")


class _BodyTooLarge(Exception):
    """The body is over max_body_bytes."""


class _BodyTimeout(Exception):
    """The body did not arrive within body_timeout_seconds."""


class RestApp:
    """ASGI app answering TF Serving's REST API with `api` on `executor`'s threads.

    `large_executor` (default: one thread of its own) runs the requests whose body is over
    `LARGE_BODY_BYTES`. See the module docstring for the other limits. `models` (name ->
    `ModelVersions`, as served; default the api's) and `batcher` (`_batching.Batcher`, or
    None) are kept for a gRPC server or metrics beside the app.
    """

    def __init__(self, api: RestApi, executor: ThreadPoolExecutor, max_body_bytes: int,
                 timeout_seconds: float | None = None,
                 on_shutdown: Callable[[], None] | None = None, *,
                 body_timeout_seconds: float | None = DEFAULT_BODY_TIMEOUT_SECONDS,
                 max_queue: int = DEFAULT_MAX_QUEUE,
                 large_executor: ThreadPoolExecutor | None = None,
                 models: Mapping[str, Any] | None = None, batcher: Any = None):
        self._api = api
        self.models: Mapping[str, Any] = (models if models is not None
                                          else getattr(api, "_models", {}))
        self.batcher = batcher if batcher is not None else getattr(api, "_batcher", None)
        self._executor = executor
        self._large_executor = large_executor or ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="serving-large")
        self._max_body_bytes = max_body_bytes
        self._timeout = timeout_seconds
        self._body_timeout = body_timeout_seconds
        self._max_queue = max_queue
        self._pending = 0  # requests queued or running (touched on the event loop only)
        self._pending_large = 0
        self._on_shutdown = on_shutdown
        self._costs = InlineCosts()  # of (method, path, body size class): see `_kind`

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            body = await self._read_body(scope, receive)
        except _BodyTooLarge:
            await _respond(send, 413, _error_body(
                f"Request body too large: over the server's limit of {self._max_body_bytes} "
                "bytes (--max_body_bytes); send fewer instances per request"), close=True)
            return
        except _BodyTimeout:
            await _respond(send, 408, _error_body(
                f"Request body not received within {self._body_timeout:g} s "
                "(--body_timeout_seconds); send the whole body at once"), close=True)
            return
        refusal = self._overloaded(len(body))
        if refusal is not None:
            await _respond(send, 503, _error_body(refusal), close=True)
            return
        status, payload = await self._run(scope["method"], scope["path"], body,
                                          scope.get(SIGNATURES_RUN))
        await _respond(send, status, payload)

    def _overloaded(self, size: int) -> str | None:
        """Why a request of `size` bytes is refused now (the queues are full), or None."""
        if self._pending >= self._max_queue:
            return (f"Server overloaded: {self._pending} requests are already queued or running, "
                    f"the server's limit (--rest_api_max_queue={self._max_queue}); retry later")
        if size > LARGE_BODY_BYTES and self._pending_large >= MAX_LARGE_QUEUE:
            return (f"Server overloaded: {self._pending_large} requests with bodies over "
                    f"{LARGE_BODY_BYTES} bytes are already queued or running (at most "
                    f"{MAX_LARGE_QUEUE}); retry later, or send smaller requests")
        return None

    @staticmethod
    def _small(path: str, body: bytes) -> bool:
        """True for a request that may be answered on the event loop: a body of at most
        `INLINE_BODY_BYTES`, and a path that never loads a version (no /versions/: a lazily
        loaded version loads on first use)."""
        return len(body) <= INLINE_BODY_BYTES and "/versions/" not in path.lower()

    def _inline(self, method: str, path: str, body: bytes) -> bool:
        """True when the request is answered on the event loop, model included: no batcher,
        a small request (`_small`), of a kind measured cheap (`InlineCosts`)."""
        return (self.batcher is None and self._small(path, body)
                and self._costs.cheap(_kind(method, path, body)))

    async def _run(self, method: str, path: str, body: bytes,
                   ran: list[str] | None = None) -> tuple[int, bytes]:
        """Answers the request within the timeout: a small one on the event loop (with a
        batcher always, its model calls waiting for their batch; without, when its kind was
        measured cheap), any other on a worker thread. The names of the signatures run are
        appended to `ran` (when given: the metrics' label)."""
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
        small = self._small(path, body)
        if small and self.batcher is not None:
            self._pending += 1
            try:
                return await self._api.handle_async(method, path, body, deadline,
                                                    self._run_alone, ran)
            finally:
                self._pending -= 1
        if self._inline(method, path, body):
            return self._costs.measure(_kind(method, path, body), self._api.handle, method,
                                       path, body, deadline, ran)
        large = len(body) > LARGE_BODY_BYTES
        self._pending += 1
        self._pending_large += large
        try:
            if small:
                return await self._off_loop(self._executor, self._costs.measure,
                                            _kind(method, path, body), self._api.handle,
                                            method, path, body, deadline, ran)
            return await self._off_loop(self._large_executor if large else self._executor,
                                        self._api.handle, method, path, body, deadline, ran)
        except RequestError as error:  # (the timeout)
            return error.status, _error_body(error.message)
        finally:
            self._pending -= 1
            self._pending_large -= large

    async def _run_alone(self, call: ModelCall) -> Any:
        """A model call the batcher does not take, on a worker thread."""
        return await self._off_loop(self._executor, run_call, call)

    async def _off_loop(self, executor: ThreadPoolExecutor, fn: Callable, *args: Any) -> Any:
        """`fn(*args)` on one of `executor`'s threads; a 504 RequestError once the timeout
        passes (the work then stops at its next step; a call still queued never runs)."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(executor, fn, *args)
        if self._timeout is None:
            return await future
        # (asyncio.wait_for's semantics without its waiter future and callbacks per request:
        # past the timeout the future is cancelled; a queued call then never runs)
        expired: list[bool] = []

        def expire() -> None:
            expired.append(True)
            future.cancel()

        timer = loop.call_later(self._timeout, expire)
        try:
            return await future
        except asyncio.CancelledError:
            if not expired:
                raise
            raise RequestError(
                f"Request timed out after {self._timeout * 1000:.0f} ms "
                "(--rest_api_timeout_in_ms); its work is stopped at its next step. Send fewer "
                "instances per request, or raise the timeout", 504) from None
        finally:
            timer.cancel()

    async def _read_body(self, scope: dict, receive: Callable) -> bytes:
        """The request body; _BodyTooLarge past the size limit, _BodyTimeout past the time
        limit."""
        limit = self._max_body_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    if int(value) > limit:
                        raise _BodyTooLarge
                except ValueError:
                    pass
                break
        deadline = None if self._body_timeout is None else (
            time.monotonic() + self._body_timeout)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await _receive_by(receive, deadline)
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def _lifespan(self, receive: Callable, send: Callable) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._on_shutdown is not None:
                    self._on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return


def _kind(method: str, path: str, body: bytes) -> tuple[str, str, int]:
    """The kind of a request whose CPU time is measured (`InlineCosts`): its method, path and
    size class (the body's length to a power of two), so that a path's small requests and
    its larger ones, more rows in a body, are judged apart."""
    return method, path, len(body).bit_length()


async def _receive_by(receive: Callable, deadline: float | None) -> dict:
    """The next ASGI message; _BodyTimeout when it has not come by `deadline`."""
    if deadline is None:
        return await receive()
    try:
        if _TIMEOUT is None:  # (Python 3.10)
            return await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
        # (no task per message, as wait_for makes: a message already there costs no loop turn)
        async with _TIMEOUT(max(0.0, deadline - time.monotonic())):
            return await receive()
    except asyncio.TimeoutError:
        raise _BodyTimeout from None


async def _respond(send: Callable, status: int, payload: bytes, close: bool = False) -> None:
    headers: list[Any] = [*_JSON_HEADERS, (b"content-length", str(len(payload)).encode())]
    if close:
        headers.append(_CLOSE)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
