"""Which requests are answered on the event loop itself: the small ones of a kind measured
cheap.

A hop to a worker thread and back costs more than a small `:predict` of a
small model, and the interpreter lock runs the two one at a time anyway; but
a request answered on the loop holds up every other connection while it runs.
So the REST app and the gRPC server measure the CPU time of each kind of
request (a REST method and path, a gRPC method, each with its size class: the
body's length to a power of two) and answer on the loop only
the kinds whose least CPU time over their last `WINDOW` requests is
`INLINE_CPU_SECONDS` or less, with a body of at most `INLINE_BODY_BYTES`; an
unmeasured kind runs on a worker thread, and is measured there.

The least, not the average: a request on a worker thread fights the loop's
thread (and gRPC's poller) for the interpreter lock, and each handoff adds
CPU time. Measured so, a 0.1 ms model call took 0.5 ms on a busy server, and
an average then kept a cheap kind on the workers, where its requests were
measured expensive again (under load, 45% of gRPC calls ran there, at 30%
fewer requests a second). A kind that is expensive by itself stays
expensive on every request, and so off the loop; a path's larger requests
(more rows) are another kind than its small ones, judged on their own.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

INLINE_BODY_BYTES = 16384  # a body up to this size may be answered on the event loop
INLINE_CPU_SECONDS = 0.001  # ... when its kind's least CPU time is this much or less (1 ms:
# the longest a cheap request holds up the others on the loop)
WINDOW = 8  # the requests of a kind whose least CPU time decides
_MAX_KINDS = 1024

T = TypeVar("T")


class InlineCosts:
    """The CPU seconds of each kind of small request's last `WINDOW` requests, and whether a
    kind is cheap enough to answer on the event loop."""

    def __init__(self) -> None:
        self._costs: dict[Hashable, deque[float]] = {}

    def cheap(self, kind: Hashable) -> bool:
        """True when `kind`'s requests were measured, and the least CPU time of its last
        `WINDOW` is `INLINE_CPU_SECONDS` or less."""
        costs = self._costs.get(kind)
        return costs is not None and min(costs) <= INLINE_CPU_SECONDS

    def measure(self, kind: Hashable, fn: Callable[..., T], *args: Any) -> T:
        """Returns `fn(*args)`, its thread CPU time recorded for `kind`."""
        start = time.thread_time()
        try:
            return fn(*args)
        finally:
            cost = time.thread_time() - start
            costs = self._costs.get(kind)
            if costs is None:
                if len(self._costs) >= _MAX_KINDS:
                    self._costs.clear()  # (arbitrary paths must not grow the table unbounded)
                costs = self._costs[kind] = deque(maxlen=WINDOW)
            costs.append(cost)
