"""The ASGI application: reads a request, answers it off the event loop with `RestApi`.

A plain ASGI callable (served by Uvicorn; mountable in any ASGI framework).
The body is read up to `max_body_bytes` (413 past it, before reading more);
the JSON work and the model run in a thread pool, so one slow request never
holds up the others; `timeout_seconds` bounds how long a client waits
(TF Serving's `--rest_api_timeout_in_ms`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from torchestimator.serving._rest import RestApi

_LOG = logging.getLogger("torchestimator.serving")
_JSON_HEADERS = [(b"content-type", b"application/json")]


def _error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode("utf-8")


class RestApp:
    """ASGI app answering TF Serving's REST API with `api` on `executor`'s threads."""

    def __init__(self, api: RestApi, executor: ThreadPoolExecutor, max_body_bytes: int,
                 timeout_seconds: float | None = None,
                 on_shutdown: Callable[[], None] | None = None):
        self._api = api
        self._executor = executor
        self._max_body_bytes = max_body_bytes
        self._timeout = timeout_seconds
        self._on_shutdown = on_shutdown

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        method = scope["method"]
        path = scope["path"]
        body = await self._read_body(scope, receive)
        if body is None:
            await _respond(send, 413, _error_body(
                f"Request body too large: over the server's limit of {self._max_body_bytes} "
                "bytes (--max_body_bytes); send fewer instances per request"))
            return
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, self._api.handle, method, path, body)
        try:
            status, payload = await asyncio.wait_for(future, self._timeout)
        except asyncio.TimeoutError:
            status, payload = 504, _error_body(
                f"Request timed out after {self._timeout * 1000:.0f} ms "
                "(--rest_api_timeout_in_ms); the model is still busy with it")
        await _respond(send, status, payload)

    async def _read_body(self, scope: dict, receive: Callable) -> bytes | None:
        """The request body, or None when it is larger than the limit."""
        limit = self._max_body_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    if int(value) > limit:
                        return None
                except ValueError:
                    pass
                break
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
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


async def _respond(send: Callable, status: int, payload: bytes) -> None:
    headers: list[Any] = [*_JSON_HEADERS, (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
