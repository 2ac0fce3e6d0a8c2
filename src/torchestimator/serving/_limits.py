"""The server's limits: their defaults, the `torchestimator serve` flags that set them, and the
answers past them.

Per request (the ASGI app, `create_app`):

    max_body_bytes        64 MiB  --max_body_bytes               413, the body is not read
    max_rows              100000  --max_request_rows             413 (instances/examples/rows)
    max_response_bytes    64 MiB  --max_response_bytes           413, before the answer is built
    timeout_seconds       30      --rest_api_timeout_in_ms       504; the work stops at its next
                                                                 step, and a request whose time
                                                                 ran out while queued never runs
    body_timeout_seconds  30      --body_timeout_seconds         408 and the connection closed
    max_queue             1024    --rest_api_max_queue           503 past that many requests
                                                                 queued or running

Per connection (Uvicorn, `serve`):

    header_timeout_seconds 10     --header_timeout_seconds       408 and closed when a request's
                                                                 headers take longer
    max_header_bytes       64 KiB --max_header_bytes             431 and closed
    keep_alive_seconds     5      --keep_alive_timeout_seconds   an idle connection is closed
    max_requests_per_connection 0 --max_requests_per_connection  closed after that many (0: no
                                                                 limit)
    max_connections        auto   --rest_api_max_connections     503 past it; a connection past
                                                                 1.25x it is closed at once. auto:
                                                                 4/5 of the file descriptors this
                                                                 process may open less 128 kept
                                                                 for model files and the version
                                                                 poller, from 8 to 1024

Requests with a body over `LARGE_BODY_BYTES` run on their own thread, one at a time, so a few
huge requests never hold up the small ones queued behind them.
"""

from __future__ import annotations

import resource

MIB = 1024 * 1024
DEFAULT_MAX_BODY_BYTES = 64 * MIB
DEFAULT_MAX_ROWS = 100_000
DEFAULT_MAX_RESPONSE_BYTES = 64 * MIB
DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_BODY_TIMEOUT_SECONDS = 30.0
DEFAULT_MAX_QUEUE = 1024
DEFAULT_HEADER_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_HEADER_BYTES = 64 * 1024
DEFAULT_KEEP_ALIVE_SECONDS = 5.0
DEFAULT_MAX_REQUESTS_PER_CONNECTION = 0
LARGE_BODY_BYTES = 1 * MIB
MAX_LARGE_QUEUE = 8  # large requests queued or running at once; past it 503
_RESERVED_DESCRIPTORS = 128


def default_max_connections() -> int:
    """Connections served at once when --rest_api_max_connections is 0: 4/5 of the file
    descriptors this process may open (RLIMIT_NOFILE) less 128 kept for model files, logs and
    the version poller (so that the hard cap, 1.25x it, stays under the limit), at least 8 and
    at most 1024 (716 with the common limit of 1024; 102 with 256)."""
    try:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 1024
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return 1024
    return max(8, min(1024, (soft - _RESERVED_DESCRIPTORS) * 4 // 5))


def hard_connection_cap(max_connections: int) -> int:
    """Past this many open connections a new one is closed as soon as it is accepted."""
    return max_connections + max(8, max_connections // 4)


def check_positive(name: str, value: float | None, flag: str, allow_none: bool = False) -> None:
    """ValueError naming the argument and its flag unless `value` > 0 (or None when allowed)."""
    if value is None and allow_none:
        return
    if value is None or value <= 0:
        raise ValueError(f"{name} must be > 0 ({flag}); got {value}")
