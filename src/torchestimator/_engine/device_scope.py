"""The device scope: the devices of this thread's open `tf.device` blocks (and of the
`placement_scope`s a front opens), innermost last.

`tf.device` (`_ops/control_ops/_context.py`) pushes onto this stack; the training loop's
`default_device` and the creation device of variables, weights, metric state, slots and tables
read it. It lives in `_engine` so that the loop reads it without importing `_ops`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import torch


class _DeviceScopes(threading.local):
    """The devices of this thread's open `tf.device` blocks, innermost last (thread-local as
    TF's device scope and torch's default-device context)."""

    def __init__(self) -> None:
        self.stack: list[torch.device] = []


_SCOPES = _DeviceScopes()


class _HostScopes(threading.local):
    """How many host scopes (`on_host`) this thread is in: TF's CPU-placed code (a `tf.data`
    function, an Estimator's `input_fn`), where tensor-making ops stay on the host."""

    def __init__(self) -> None:
        self.depth = 0


HOST = _HostScopes()


@contextlib.contextmanager
def on_host() -> Iterator[None]:
    """Within the block, TF's tensor-making ops (`tf.constant`, `tf.zeros`, `tf.random.normal`,
    ...) make their tensors on the host, as TF places a `tf.data` function's and an `input_fn`'s
    ops on the CPU (`loop.op_device` is None there)."""
    HOST.depth += 1
    try:
        yield
    finally:
        HOST.depth -= 1


def scoped_device() -> torch.device | None:
    """The device of the innermost open `tf.device` block, or None outside any."""
    stack = _SCOPES.stack
    return stack[-1] if stack else None


@contextlib.contextmanager
def placement_scope(device: torch.device | None) -> Iterator[None]:
    """Within the block, variables, weights, metric state, slots and tables are created on
    `device` (None: no change) -- what a front that chose where a call runs (an Estimator's
    `RunConfig(device_fn=...)`, `fit` under `tf.device`) wraps around the code that creates
    them. Unlike `tf.device` it leaves torch's default device alone (no per-op cost)."""
    if device is None:
        yield
        return
    stack = _SCOPES.stack
    stack.append(torch.device(device))
    try:
        yield
    finally:
        stack.pop()
