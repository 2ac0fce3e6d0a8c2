"""InlineCosts: a kind is cheap when its least CPU time over its last WINDOW requests is at
most INLINE_CPU_SECONDS, so that requests inflated by contention on worker threads do not
keep a cheap kind off the event loop, while a kind expensive on every request stays off."""

from __future__ import annotations

from _serving_testlib import burn_cpu

from torchestimator.serving import _inline
from torchestimator.serving._inline import INLINE_CPU_SECONDS, WINDOW, InlineCosts


def _burn(seconds: float) -> str:
    burn_cpu(seconds)
    return "done"


def test_unmeasured_kinds_are_not_cheap_and_measure_returns_the_result():
    costs = InlineCosts()
    assert not costs.cheap("a")
    assert costs.measure("a", _burn, 0.0) == "done"
    assert costs.cheap("a")


def test_one_cheap_request_in_the_window_keeps_a_kind_cheap():
    costs = InlineCosts()
    costs.measure("k", _burn, 0.0)
    for _ in range(WINDOW - 1):  # inflated ones (a worker thread fighting for the lock)
        costs.measure("k", _burn, 2 * INLINE_CPU_SECONDS)
    assert costs.cheap("k")
    costs.measure("k", _burn, 2 * INLINE_CPU_SECONDS)  # the cheap one leaves the window
    assert not costs.cheap("k")
    costs.measure("k", _burn, 0.0)
    assert costs.cheap("k")


def test_the_table_of_kinds_is_bounded(monkeypatch):
    monkeypatch.setattr(_inline, "_MAX_KINDS", 4)
    costs = InlineCosts()
    for kind in range(10):
        costs.measure(kind, _burn, 0.0)
    assert len(costs._costs) <= 4 and costs.cheap(9)
