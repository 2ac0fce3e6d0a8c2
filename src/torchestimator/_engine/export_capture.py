"""What an export records while it runs a model_fn or a Keras model: the boundary between
the data part of a serving graph and its tensor part.

An export runs the model twice under an `ExportCapture`: once eagerly on a sample batch
(`record`), then under `torch.export` (`replay`). Two kinds of value never enter the traced
program, because they are strings or Python-side lookups:

* **Preprocessing layers** (`DenseFeatures`, `LinearModel`, `SequenceFeatures`, the boosted
  trees' ensemble): they turn raw features (strings, ragged lists) into tensors with
  vocabularies, hash buckets and boundaries. Such a layer calls
  `preprocessing_call(self, compute)`: when recording, its output is computed and
  remembered with the layer; when replaying, the output is the program input given for
  that call instead. The export stores each layer as data (its config) with its weights,
  and the loaded model runs it before the program.
* **String outputs** (a classifier's `classes`): `string_output(ids, names)` returns a
  `StringOutput` holding the int ids and the table of names; the program returns the ids
  and the export stores the table.

Outside an export (`active()` is None) both are plain calls: one thread-local read.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch

_LOCAL = threading.local()


@dataclasses.dataclass
class StringOutput:
    """A string output of a serving signature: `names[ids]`, computed after the program.

    Attributes:
        ids: an integer tensor of the output's shape (a program output).
        names: the table of names (bytes), as a tuple.
    """

    ids: torch.Tensor
    names: tuple[bytes, ...]

    def numpy(self) -> np.ndarray:
        """Returns the strings: a numpy object array of bytes of `ids`' shape."""
        table = np.asarray(self.names, dtype=object)
        return table[self.ids.detach().cpu().numpy()]


@dataclasses.dataclass
class PreprocessingCall:
    """One call of a preprocessing layer recorded by an export: the layer, its output and
    the features mapping it was called with (None when its first argument was not one)."""

    layer: Any
    output: Any
    features: Any = None


class ExportCapture:
    """The state of one export run: `mode` is 'record' or 'replay'.

    Recording appends a `PreprocessingCall` per preprocessing layer call to `calls`;
    replaying returns `replay_outputs[i]` for the i-th call, checking that the same layer
    is called in the same order.
    """

    def __init__(self, mode: str, replay_outputs: Sequence[Any] = (), calls: Sequence[PreprocessingCall] = ()):
        if mode not in ("record", "replay"):
            raise ValueError(f"mode must be 'record' or 'replay', got {mode!r}")
        self.mode = mode
        self.calls: list[PreprocessingCall] = list(calls)
        self.replay_outputs = list(replay_outputs)
        self.index = 0

    def on_call(self, layer: Any, compute: Callable[[], Any], features: Any = None) -> Any:
        """Returns the output of this call of `layer` (see the class docstring)."""
        if self.mode == "record":
            output = compute()
            self.calls.append(PreprocessingCall(layer, output, features))
            return output
        if self.index >= len(self.replay_outputs):
            raise RuntimeError(
                f"Export: preprocessing layer {getattr(layer, 'name', layer)!r} was called more "
                f"times while tracing than on the sample batch ({len(self.replay_outputs)}). The "
                "model must call its feature-column layers the same way on every batch."
            )
        expected = self.calls[self.index].layer if self.index < len(self.calls) else layer
        if expected is not layer:
            raise RuntimeError(
                f"Export: preprocessing layer {getattr(layer, 'name', layer)!r} was called where "
                f"{getattr(expected, 'name', expected)!r} was called on the sample batch. The "
                "model must call its feature-column layers in the same order on every batch."
            )
        output = self.replay_outputs[self.index]
        self.index += 1
        return output


def active() -> ExportCapture | None:
    """The export capture of this thread, or None outside an export."""
    return getattr(_LOCAL, "capture", None)


@contextmanager
def capturing(capture: ExportCapture) -> Iterator[ExportCapture]:
    """Makes `capture` the active export capture of this thread for the block."""
    previous = getattr(_LOCAL, "capture", None)
    _LOCAL.capture = capture
    try:
        yield capture
    finally:
        _LOCAL.capture = previous


def preprocessing_call(layer: Any, compute: Callable[[], Any], features: Any = None) -> Any:
    """Returns `compute()` (what `layer(features)` returns), or, during an export, what the
    export decides for this layer call."""
    capture = getattr(_LOCAL, "capture", None)
    if capture is None:
        return compute()
    return capture.on_call(layer, compute, features)


def string_output(ids: torch.Tensor, names: Sequence[Any], compute: Callable[[], np.ndarray]) -> Any:
    """Returns `compute()` (the strings as a numpy array), or, during an export, a
    `StringOutput(ids, names)` the export turns into a program output and a table."""
    if getattr(_LOCAL, "capture", None) is None:
        return compute()
    table = tuple(n if isinstance(n, bytes) else str(n).encode() for n in names)
    return StringOutput(ids, table)


def preprocessing_layer(call: Callable) -> Callable:
    """Decorates a preprocessing layer's `call` so that exports see it as one
    `preprocessing_call` (see the module docstring)."""

    @functools.wraps(call)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        capture = getattr(_LOCAL, "capture", None)
        if capture is None:
            return call(self, *args, **kwargs)
        features = args[0] if args else kwargs.get("features", kwargs.get("inputs"))
        return capture.on_call(self, lambda: call(self, *args, **kwargs), features)

    return wrapper
