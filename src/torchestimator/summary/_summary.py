"""`tf.summary` (TF2): summaries into the default writer, or into the running `model_fn`'s step.

Inside an Estimator's `model_fn`, `scalar`, `histogram`, `image`, `text` and `audio` record
into the step (the `SummarySaverHook` writes them every `save_summary_steps`, at the global
step). Elsewhere they write to the default writer (`with writer.as_default():` or
`writer.set_as_default()`) at `step`, or at the default step (`tf.summary.experimental.set_step`);
with no step at all they raise TF's ValueError. With no default writer, or under a false
`record_if`, they write nothing and return False, as TF's.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._engine.model_fn_context import current_context
from torchestimator.audio._wav import encode_wav

_STATE = threading.local()
_GLOBAL: dict[str, Any] = {"step": None}  # the default step is global, as TF's


class Recorded:
    """A non-scalar summary `model_fn` recorded in its step: its kind ('histogram', 'image',
    'text', 'audio'), its value and the options of the writer's method."""

    def __init__(self, kind: str, value: Any, **options: Any):
        self.kind = kind
        self.value = value
        self.options = options

    def write(self, writer: Any, tag: str, step: int) -> None:
        """Writes this summary with `writer` (the engine's SummaryWriter) at `step`."""
        if self.kind == "audio":
            _write_audio(writer, tag, self.value, step, **self.options)
        else:
            getattr(writer, self.kind)(tag, self.value, step, **self.options)


def _record(name: str, value: Any) -> bool:
    context = current_context()
    if context is None:
        return False
    if isinstance(value, Recorded):
        if isinstance(value.value, torch.Tensor):
            value.value = value.value.detach()
        context.summaries[name] = value
    else:
        context.summaries[name] = value.detach() if isinstance(value, torch.Tensor) else value
    return True


# ------------------------------------------------------------------ writers
class SummaryWriter:
    """Interface representing a stateful summary writer object (`tf.summary.SummaryWriter`);
    `create_file_writer` and `create_noop_writer` make them."""

    def set_as_default(self, step: Any = None) -> None:
        """Enables this summary writer for the current thread (and sets the default step when
        `step` is given)."""
        _STATE.writer = self
        if step is not None:
            _GLOBAL["step"] = step

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[SummaryWriter]:
        """Returns a context manager that enables summary writing (and, with `step`, sets the
        default step for its duration)."""
        previous, previous_step = getattr(_STATE, "writer", None), _GLOBAL["step"]
        _STATE.writer = self
        if step is not None:
            _GLOBAL["step"] = step
        try:
            yield self
        finally:
            _STATE.writer = previous
            if step is not None:
                _GLOBAL["step"] = previous_step
            self.flush()

    def init(self) -> None:
        """Initializes the summary writer (nothing to do eagerly)."""

    def flush(self) -> None:
        """Flushes any buffered data."""

    def close(self) -> None:
        """Flushes and closes the summary writer."""

    def _events(self) -> Any:
        return None


class _FileWriter(SummaryWriter):
    """A writer of TensorBoard event files in `logdir`."""

    def __init__(self, logdir: str, max_queue: int | None, flush_millis: int | None,
                 filename_suffix: str | None):
        from torchestimator._engine.summary import (  # lazy: heavy (torchestimator._engine.summary, 1220 ms)
            SummaryWriter as EventWriter,
        )

        self.writer = EventWriter(
            logdir, max_queue=10 if max_queue is None else int(max_queue),
            flush_secs=120 if flush_millis is None else max(int(flush_millis) / 1000.0, 0.001),
            filename_suffix=".v2" if filename_suffix is None else filename_suffix)
        self.logdir = logdir

    def flush(self) -> None:
        """Writes pending events to disk."""
        if not self.writer.closed:
            self.writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file."""
        self.writer.close()

    def _events(self) -> Any:
        return None if self.writer.closed else self.writer


class _NoopWriter(SummaryWriter):
    """A summary writer that writes nothing (`tf.summary.create_noop_writer`)."""


def create_file_writer(logdir: str, max_queue: int | None = None, flush_millis: int | None = None,
                       filename_suffix: str | None = None, name: str | None = None,
                       experimental_trackable: bool = False, experimental_mesh: Any = None) -> SummaryWriter:
    """Creates a summary file writer for the given log directory (TensorBoard event files,
    flushed every `flush_millis`, default 2 minutes). Returns a `SummaryWriter`."""
    if logdir is None:
        raise ValueError("Expected logdir to be a string, got None")
    return _FileWriter(os.fspath(logdir), max_queue, flush_millis, filename_suffix)


def create_noop_writer() -> SummaryWriter:
    """Returns a summary writer that does nothing."""
    return _NoopWriter()


def flush(writer: Any = None, name: str | None = None) -> None:
    """Forces the summary writer (default: the default writer) to flush its buffered data."""
    writer = writer if writer is not None else getattr(_STATE, "writer", None)
    if writer is not None:
        writer.flush()


# ------------------------------------------------------------------ step and conditions
def set_step(step: Any) -> None:
    """Sets the default summary step for the current thread (`tf.summary.experimental.set_step`)."""
    _GLOBAL["step"] = step


def get_step() -> Any:
    """Returns the default summary step (None when unset)."""
    return _GLOBAL["step"]


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """Sets summary recording on or off per the provided boolean value (or a callable returning
    one, read at each summary)."""
    stack = getattr(_STATE, "conditions", None)
    if stack is None:
        stack = _STATE.conditions = []
    stack.append(condition)
    try:
        yield
    finally:
        stack.pop()


def _condition_holds() -> bool:
    for condition in getattr(_STATE, "conditions", ()) or ():
        value = condition() if callable(condition) else condition
        if not bool(value.item() if isinstance(value, torch.Tensor) else value):
            return False
    return True


def should_record_summaries() -> bool:
    """Returns whether summaries would be written: a default writer is set and every enclosing
    `record_if` condition holds."""
    writer = getattr(_STATE, "writer", None)
    return writer is not None and not isinstance(writer, _NoopWriter) and _condition_holds()


@contextlib.contextmanager
def summary_scope(name: str, default_name: str | None = None, values: Any = None) -> Iterator[tuple]:
    """A context manager for use when defining a custom summary op: yields `(tag, scope)`,
    both `name` (or `default_name`)."""
    tag = name or default_name
    if not tag:
        raise ValueError("summary_scope needs a name or a default_name")
    yield tag, tag


def _target(step: Any) -> tuple[Any, int] | None:
    """The engine writer and the step to write at, or None when nothing is to be written."""
    writer = getattr(_STATE, "writer", None)
    if writer is None or not _condition_holds():
        return None
    events = writer._events()
    if events is None:
        return None
    if step is None:
        step = _GLOBAL["step"]
    if step is None:
        raise ValueError(
            "No step set. Please specify one either through the `step` argument or through "
            "tf.summary.experimental.set_step()"
        )
    if callable(step):
        step = step()
    if isinstance(step, torch.Tensor):
        step = int(step.item())
    return events, int(step)


# ------------------------------------------------------------------ summaries
def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Writes a scalar summary. Returns True on success, or False if no summary was written
    (no default writer). Inside a model_fn: recorded for the step's SummarySaverHook."""
    if _record(name, data):
        return True
    target = _target(step)
    if target is None:
        return False
    writer, at = target
    writer.scalar(name, data, at, description=description)
    return True


def histogram(name: str, data: Any, step: Any = None, buckets: int | None = None,
              description: str | None = None) -> bool:
    """Writes a histogram summary (`buckets` equal-width buckets, default 30). Returns True
    when written (or recorded in a model_fn step)."""
    if _record(name, Recorded("histogram", data, buckets=buckets)):
        return True
    target = _target(step)
    if target is None:
        return False
    writer, at = target
    writer.histogram(name, data, at, buckets=buckets, description=description)
    return True


def image(name: str, data: Any, step: Any = None, max_outputs: int = 3,
          description: str | None = None) -> bool:
    """Writes an image summary: `data` of shape [k, h, w, c], c in 1..4, floats in [0, 1]
    or uint8; at most `max_outputs` images. Returns True when written."""
    if _record(name, Recorded("image", data, max_outputs=max_outputs)):
        return True
    target = _target(step)
    if target is None:
        return False
    writer, at = target
    writer.image(name, data, at, max_outputs=max_outputs, description=description)
    return True


def text(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Writes a text summary (Markdown). Returns True when written."""
    if isinstance(data, (np.ndarray, list)) and np.asarray(data, dtype=object).size == 1:
        data = np.asarray(data, dtype=object).reshape(-1)[0]
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    if _record(name, Recorded("text", str(data))):
        return True
    target = _target(step)
    if target is None:
        return False
    writer, at = target
    writer.text(name, str(data), at, description=description)
    return True


def audio(name: str, data: Any, sample_rate: Any, step: Any = None, max_outputs: int = 3,
          encoding: str | None = None, description: str | None = None) -> bool:
    """Writes an audio summary: `data` of shape [k, t, c] (floats in [-1, 1]) encoded as WAV
    at `sample_rate`; at most `max_outputs` clips. Returns True when written."""
    if encoding not in (None, "wav"):
        raise ValueError(f"Unknown encoding: {encoding!r}; only 'wav' is supported.")
    if _record(name, Recorded("audio", data, sample_rate=sample_rate, max_outputs=max_outputs)):
        return True
    target = _target(step)
    if target is None:
        return False
    writer, at = target
    _write_audio(writer, name, data, at, sample_rate=sample_rate, max_outputs=max_outputs,
                 description=description)
    return True


def _write_audio(writer: Any, tag: str, data: Any, step: int, sample_rate: Any, max_outputs: int = 3,
                 description: str | None = None) -> None:
    from tensorboard.compat.proto import (  # lazy: heavy (tensorboard.compat.proto.summary_pb2, 642 ms)
        summary_pb2,
    )
    from tensorboard.plugins.audio import (  # lazy: heavy (tensorboard.plugins.audio.metadata, 826 ms)
        metadata as audio_metadata,
    )
    from tensorboard.util import tensor_util  # lazy: heavy (tensorboard.util.tensor_util, 1198 ms)


    clips = torch.as_tensor(np.asarray(data.detach().cpu() if isinstance(data, torch.Tensor) else data,
                                       dtype=np.float32))
    if clips.dim() != 3:
        raise ValueError(f"tf.summary.audio({tag!r}): data must have shape [k, t, c]; got {tuple(clips.shape)}.")
    rate = int(sample_rate.item() if isinstance(sample_rate, torch.Tensor) else sample_rate)
    encoded = [encode_wav(clip, rate) for clip in clips[:max_outputs]]
    table = np.array([[bytes(e), b""] for e in encoded], dtype=object).reshape(-1, 2)
    meta = audio_metadata.create_summary_metadata(display_name=tag, description=description or "",
                                                  encoding=audio_metadata.Encoding.Value("WAV"))
    writer.write_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag=tag, metadata=meta, tensor=tensor_util.make_tensor_proto(table))]), step)


def write(tag: str, tensor: Any, step: Any = None, metadata: Any = None, name: str | None = None) -> bool:
    """Writes a generic summary: `tensor` (a callable is called) with `metadata` (a
    `SummaryMetadata` proto or its serialized bytes). Returns True when written."""
    from tensorboard.compat.proto import (  # lazy: heavy (tensorboard.compat.proto.summary_pb2, 642 ms)
        summary_pb2,
    )
    from tensorboard.util import tensor_util  # lazy: heavy (tensorboard.util.tensor_util, 1198 ms)

    target = _target(step)
    if target is None:
        return False
    writer, at = target
    if callable(tensor):
        tensor = tensor()
    if isinstance(metadata, (bytes, bytearray)):
        metadata = summary_pb2.SummaryMetadata.FromString(bytes(metadata))
    value = tensor.detach().cpu().numpy() if isinstance(tensor, torch.Tensor) else np.asarray(tensor)
    writer.write_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag=tag, metadata=metadata or summary_pb2.SummaryMetadata(),
        tensor=tensor_util.make_tensor_proto(value))]), at)
    return True


def write_raw_pb(tensor: Any, step: Any = None, name: str | None = None) -> bool:
    """Writes serialized `Summary` protos (bytes, or a list of them) to the default writer."""
    from tensorboard.compat.proto import (  # lazy: heavy (tensorboard.compat.proto.summary_pb2, 642 ms)
        summary_pb2,
    )

    target = _target(step)
    if target is None:
        return False
    writer, at = target
    values = tensor if isinstance(tensor, (list, tuple, np.ndarray)) else [tensor]
    for raw in np.asarray(values, dtype=object).reshape(-1).tolist():
        if isinstance(raw, str):  # a string tensor holds valid UTF-8 as str
            raw = raw.encode("utf-8")
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise TypeError(
                "tf.summary.experimental.write_raw_pb: `tensor` must hold serialized Summary "
                f"protos (bytes); received an element of type {type(raw).__name__}.")
        writer.write_summary(summary_pb2.Summary.FromString(bytes(raw)), at)
    return True


def graph(graph_data: Any) -> bool:
    """Writes a graph (a `GraphDef`, e.g. `tf.compat.v1.GraphDef`) to the default writer.
    There is no `tf.Graph` here: functions run eagerly. Returns True when written."""
    from tensorboard.compat.proto import (  # lazy: heavy (tensorboard.compat.proto.event_pb2, 390 ms)
        event_pb2,
        graph_pb2,
    )

    if not isinstance(graph_data, graph_pb2.GraphDef):
        raise ValueError(
            f"Expected a GraphDef; received {type(graph_data).__name__}. There is no tf.Graph in "
            "torchestimator (ops run eagerly); a Keras model's graph is written by the "
            "TensorBoard callback (write_graph=True)."
        )
    writer = getattr(_STATE, "writer", None)
    events = writer._events() if writer is not None and _condition_holds() else None
    if events is None:
        return False
    events.add_event(event_pb2.Event(wall_time=time.time(), graph_def=graph_data.SerializeToString()))
    return True


# ------------------------------------------------------------------ tracing (the profiler)
_TRACE: dict[str, Any] = {"profiler": None, "outdir": None}


def trace_on(graph: bool = True, profiler: bool = False, profiler_outdir: str | None = None) -> None:
    """Starts a trace. With `profiler=True` the PyTorch profiler records the ops run until
    `trace_export` (there are no function graphs to trace here: `graph` records nothing)."""
    if _TRACE["profiler"] is not None:
        raise ValueError("A trace is already running: call trace_export or trace_off first.")
    if profiler:
        activities = [torch.profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        session = torch.profiler.profile(activities=activities, record_shapes=True)
        session.__enter__()
        _TRACE["profiler"], _TRACE["outdir"] = session, profiler_outdir


def trace_export(name: str, step: Any = None, profiler_outdir: str | None = None) -> None:
    """Stops the trace and writes the profile as a Chrome trace
    `<outdir>/plugins/profile/<time>/<name>.pt.trace.json` (the layout PyTorch's TensorBoard
    profiler plugin reads; `outdir` is `profiler_outdir`, else the default writer's logdir)."""
    session, outdir = _TRACE["profiler"], profiler_outdir or _TRACE["outdir"]
    _TRACE["profiler"] = _TRACE["outdir"] = None
    if session is None:
        return
    session.__exit__(None, None, None)
    writer = getattr(_STATE, "writer", None)
    outdir = outdir or getattr(writer, "logdir", None)
    if outdir is None:
        raise ValueError("trace_export needs profiler_outdir, or a default file writer to write beside.")
    directory = os.path.join(outdir, "plugins", "profile", time.strftime("%Y_%m_%d_%H_%M_%S"))
    os.makedirs(directory, exist_ok=True)
    session.export_chrome_trace(os.path.join(directory, f"{name}.pt.trace.json"))


def trace_off() -> None:
    """Stops the current trace and discards what it recorded."""
    session = _TRACE["profiler"]
    _TRACE["profiler"] = _TRACE["outdir"] = None
    if session is not None:
        session.__exit__(None, None, None)

