"""Recording summaries: into the running model_fn's step, or into a default writer."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import torch

from torchestimator._engine.model_fn_context import current_context

_DEFAULT = threading.local()


def _record(name: str, value: Any) -> bool:
    context = current_context()
    if context is None:
        return False
    context.summaries[name] = value.detach() if isinstance(value, torch.Tensor) else value
    return True


class _FileWriter:
    """`tf.summary.create_file_writer(logdir)`: use `with writer.as_default():` then `scalar(...)`."""

    def __init__(self, logdir: str):
        from torchestimator._engine.summary import SummaryWriter

        self.writer = SummaryWriter(logdir)

    @contextlib.contextmanager
    def as_default(self, step: int | None = None) -> Iterator[_FileWriter]:
        previous = getattr(_DEFAULT, "writer", None)
        _DEFAULT.writer = self
        try:
            yield self
        finally:
            _DEFAULT.writer = previous
            self.writer.flush()

    def flush(self) -> None:
        """Writes pending events to disk."""
        self.writer.flush()

    def close(self) -> None:
        """Closes the event file."""
        self.writer.close()


def create_file_writer(logdir: str, **kwargs: Any) -> _FileWriter:
    """Returns a summary writer for `logdir` (TensorBoard event files)."""
    return _FileWriter(logdir)


def _default_writer(name: str) -> Any:
    writer = getattr(_DEFAULT, "writer", None)
    if writer is None:
        return None
    return writer.writer


def scalar(name: str, data: Any, step: int | None = None, description: str | None = None) -> bool:
    """Records scalar `data` under `name`: for this step of model_fn, or in the default writer at
    `step`. Returns True when it was recorded."""
    if _record(name, data):
        return True
    writer = _default_writer(name)
    if writer is None or step is None:
        return False
    writer.scalar(name, float(data), int(step))
    return True


def histogram(name: str, data: Any, step: int | None = None, buckets: int | None = None,
              description: str | None = None) -> bool:
    """Writes a histogram of `data` to the default writer at `step`. Returns True if written."""
    writer = _default_writer(name)
    if writer is None or step is None:
        return False
    writer.histogram(name, data, int(step))
    return True


def text(name: str, data: str, step: int | None = None, description: str | None = None) -> bool:
    """Writes a text summary to the default writer at `step`. Returns True if written."""
    writer = _default_writer(name)
    if writer is None or step is None:
        return False
    writer.text(name, str(data), int(step))
    return True
