"""Uvicorn's HTTP protocol with the per-connection limits Uvicorn lacks.

Uvicorn bounds idle keep-alive connections (`timeout_keep_alive`) and answers
503 past `limit_concurrency`, but has no limit on how long a request's headers
may take to arrive, nor on their size with httptools: a client that opens
connections and dribbles headers ("slowloris") holds a file descriptor each,
for ever. This subclass of its protocol (httptools when installed, else h11)
adds, per connection:

- a header timer, armed when a connection opens and whenever bytes of a new
  request start arriving, disarmed once its headers are complete: past
  `header_timeout_seconds` the client gets 408 and the connection is closed;
- a cap on the bytes of one request's headers (`max_header_bytes`, 431);
- `max_requests_per_connection` (> 0): the answer to the last one says
  `connection: close` and the connection closes;
- a hard cap on open connections (`hard_connection_cap`): one accepted past
  it is closed at once, before it can hold a descriptor (Uvicorn's own
  `limit_concurrency`, set to `max_connections`, answers 503 below that).

A subclass rather than a timeout inside the ASGI app, because the app only
sees a request once its headers are complete. The settings travel on the
Uvicorn `Config` (attributes named `torchestimator_*`), so worker processes
get them too. (The body's own timeout is the app's: `RestApp`.)
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

_LOG = logging.getLogger("torchestimator.serving")
_408 = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n%s")
_431 = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n%s")


def configure(config: Any, *, header_timeout_seconds: float | None, max_header_bytes: int,
              max_requests_per_connection: int, hard_connection_cap: int | None) -> None:
    """Puts the per-connection limits on a Uvicorn `config` (read by `protocol_class()`)."""
    config.torchestimator_header_timeout = header_timeout_seconds
    config.torchestimator_max_header_bytes = max_header_bytes
    config.torchestimator_max_requests = max_requests_per_connection
    config.torchestimator_hard_cap = hard_connection_cap


def _canned(template: bytes, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    return template % (len(body), body)


class _Guard:
    """The limits, mixed in before Uvicorn's protocol class (see the module docstring)."""

    config: Any
    connections: set
    cycle: Any
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[misc]
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self._requests = 0
        cap = getattr(self.config, "torchestimator_hard_cap", None)
        if cap is not None and len(self.connections) > cap:
            _LOG.warning("Closing a new connection: %d are open, over the hard cap of %d "
                         "(1.25x --rest_api_max_connections)", len(self.connections), cap)
            transport.abort()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and self._header_timer is None:
            self._arm()
        before = self.cycle
        super().data_received(data)  # type: ignore[misc]
        if self.cycle is not before and self.cycle is not None:
            self._headers_complete()
        elif waiting:
            self._header_bytes += len(data)
            limit = getattr(self.config, "torchestimator_max_header_bytes", 0)
            if limit and self._header_bytes > limit:
                self._refuse(_431, f"Request headers over the server's limit of {limit} "
                             "bytes (--max_header_bytes)")

    def _headers_complete(self) -> None:
        """A request's headers have arrived: stop the timer, count the request."""
        self._disarm()
        self._header_bytes = 0
        self._requests += 1
        limit = getattr(self.config, "torchestimator_max_requests", 0)
        if limit and self._requests >= limit:
            self.cycle.keep_alive = False

    def _arm(self) -> None:
        timeout = getattr(self.config, "torchestimator_header_timeout", None)
        if timeout is not None and not self.transport.is_closing():
            self._header_timer = self.loop.call_later(timeout, self._header_timeout)

    def _disarm(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.cycle is None or self.cycle.response_complete:
            timeout = self.config.torchestimator_header_timeout
            self._refuse(_408, f"Request headers not received within {timeout:g} s "
                         "(--header_timeout_seconds)")

    def _refuse(self, template: bytes, message: str) -> None:
        """Answers the canned error (when no answer is under way) and closes."""
        self._disarm()
        if self.transport.is_closing():
            return
        _LOG.info("Closing a connection: %s", message)
        self.transport.write(_canned(template, message))
        self.transport.close()


try:  # imported by `serve` only: Uvicorn's protocol, httptools when installed
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Base
except ImportError:  # pragma: no cover - without httptools
    from uvicorn.protocols.http.h11_impl import H11Protocol as _Base  # type: ignore[assignment]


class GuardedHttpProtocol(_Guard, _Base):  # type: ignore[misc, valid-type]
    """Uvicorn's HTTP protocol (httptools, else h11) with `_Guard`'s limits (a module-level
    class, so that worker processes can unpickle a Config naming it)."""
