"""Which requests are answered on the event loop itself: the small ones of a kind measured
cheap.

A hop to a worker thread and back costs more than a small `:predict` of a
small model, and the interpreter lock runs the two one at a time anyway; but
a request answered on the loop holds up every other connection while it runs.
So the REST app and the gRPC server measure the CPU time of each kind of
request (a REST method and path, a gRPC method) and answer on the loop only
the kinds that average `INLINE_CPU_SECONDS` or less, with a body of at most
`INLINE_BODY_BYTES`; an unmeasured kind runs on a worker thread, and is
measured there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

INLINE_BODY_BYTES = 16384  # a body up to this size may be answered on the event loop
INLINE_CPU_SECONDS = 0.001  # ... when its kind's requests average this much CPU or less (1 ms:
# the longest a cheap request holds up the others on the loop)
_MAX_KINDS = 1024

T = TypeVar("T")


class InlineCosts:
    """The average CPU seconds of each kind of small request, and whether a kind is cheap
    enough to answer on the event loop."""

    def __init__(self) -> None:
        self._costs: dict[Hashable, float] = {}

    def cheap(self, kind: Hashable) -> bool:
        """True when `kind`'s requests were measured and average `INLINE_CPU_SECONDS` or
        less."""
        cost = self._costs.get(kind)
        return cost is not None and cost <= INLINE_CPU_SECONDS

    def measure(self, kind: Hashable, fn: Callable[..., T], *args: Any) -> T:
        """Returns `fn(*args)`, its thread CPU time folded into `kind`'s average."""
        start = time.thread_time()
        try:
            return fn(*args)
        finally:
            cost = time.thread_time() - start
            if len(self._costs) >= _MAX_KINDS and kind not in self._costs:
                self._costs.clear()  # (arbitrary paths must not grow the table without bound)
            last = self._costs.get(kind)
            self._costs[kind] = cost if last is None else (last + cost) / 2
