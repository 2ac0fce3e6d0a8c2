"""`tf.compat.v1.summary`: TF1 summaries.

Inside an Estimator's `model_fn`, `scalar`, `histogram`, `image`, `audio`, `text` and
`tensor_summary` record into the step, and the Estimator's SummarySaverHook writes them every
`save_summary_steps` at the global step (TF1 builds summary ops the hook runs). `merge_all()`
and `merge([...])` stand for those summaries as a hook's `summary_op`. `FileWriter` writes
`Summary` protos, events and graphs to TensorBoard event files, as TF1's does outside a graph.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
from google.protobuf import json_format

from torchestimator.compat.v1._protos import proto
from torchestimator.summary._summary import Recorded, _record


def scalar(name: str, tensor: Any, collections: Any = None, family: Any = None) -> Any:
    """Records `tensor` as the scalar summary `name` of this model_fn step; returns the tensor."""
    _record(name, tensor)
    return tensor


def histogram(name: str, values: Any, collections: Any = None, family: Any = None) -> Any:
    """Records a histogram of `values` as summary `name` of this model_fn step (written by the
    SummarySaverHook); returns `values`."""
    _record(name, Recorded("histogram", values, buckets=None))
    return values


def image(name: str, tensor: Any, max_outputs: int = 3, collections: Any = None,
          family: Any = None) -> Any:
    """Records images (`[k, h, w, c]`) as summary `name` of this model_fn step; returns them."""
    _record(name, Recorded("image", tensor, max_outputs=max_outputs))
    return tensor


def audio(name: str, tensor: Any, sample_rate: Any, max_outputs: int = 3, collections: Any = None,
          family: Any = None) -> Any:
    """Records audio clips (`[k, t, c]` or `[k, t]`, floats in [-1, 1]) as summary `name` of
    this model_fn step; returns them."""

    clips = torch.as_tensor(tensor)
    if clips.dim() == 2:
        clips = clips.unsqueeze(-1)
    _record(name, Recorded("audio", clips, sample_rate=sample_rate, max_outputs=max_outputs))
    return tensor


def text(name: str, tensor: Any, collections: Any = None) -> Any:
    """Records a string as the text summary `name` of this model_fn step; returns it."""

    value = np.asarray(tensor, dtype=object).reshape(-1)
    data = value[0] if value.size == 1 else "\n".join(str(v) for v in value)
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    _record(name, Recorded("text", str(data)))
    return tensor


def tensor_summary(name: str, tensor: Any, summary_description: Any = None, collections: Any = None,
                   summary_metadata: Any = None, family: Any = None, display_name: Any = None) -> Any:
    """Records `tensor` as summary `name` of this model_fn step (a scalar as a scalar, any other
    tensor as a histogram); returns it."""

    if np.asarray(tensor.detach().cpu() if hasattr(tensor, "detach") else tensor).size == 1:
        _record(name, tensor)
    else:
        _record(name, Recorded("histogram", tensor, buckets=None))
    return tensor


class _MergedSummaries:
    """What `merge_all()` and `merge(...)` return: stands for every summary model_fn recorded
    in a step (a hook's `summary_op`)."""

    _merge_all = True

    def __repr__(self) -> str:
        return "<merge_all: every summary of the step>"


def merge_all(key: Any = "summaries", scope: Any = None, name: Any = None) -> _MergedSummaries:
    """Returns the op for all summaries recorded in a model_fn step; pass it as
    `SummarySaverHook(summary_op=...)`. `key` is the collection of summaries: only TF's
    default, `tf.compat.v1.GraphKeys.SUMMARIES` ('summaries'), where every summary goes."""
    if key is not None and key != "summaries":
        raise NotImplementedError(
            f"merge_all(key={key!r}): summaries are not kept in graph collections here; every "
            "summary of the step is in the default key 'summaries' (tf.compat.v1.GraphKeys."
            "SUMMARIES). Pass that key, or merge([...]) the summaries you want.")
    return _MergedSummaries()


def merge(inputs: Any, collections: Any = None, name: Any = None) -> _MergedSummaries:
    """Merges summaries: as `merge_all()`, the summaries recorded in the model_fn step."""
    return _MergedSummaries()


def initialize(graph: Any = None, session: Any = None) -> None:
    """Initializes summary writing for graph execution mode: nothing to do (eager)."""


def all_v2_summary_ops() -> None:
    """Returns None: there is no graph, so no collection of TF2 summary ops (TF's answer in
    eager mode)."""
    return None


def get_summary_description(node_def: Any) -> Any:
    """The `SummaryDescription` of a `TensorSummary` op's `NodeDef`: its `description` attribute,
    a JSON `SummaryDescription` (TF's `get_summary_description`).

    Raises:
      ValueError: `node_def` is not a `TensorSummary` op.
    """
    op = getattr(node_def, "op", None)
    if op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {op}: node_def.op must be 'TensorSummary'.")
    description = proto("SummaryDescription")()
    text = node_def.attr["description"].s
    json_format.Parse(text.decode() if isinstance(text, bytes) else str(text), description)
    return description


class FileWriter:
    """Writes `Summary` protocol buffers and events to TensorBoard event files in `logdir`
    (`tf.compat.v1.summary.FileWriter`). `graph` (a `GraphDef`) is written when given."""

    def __init__(self, logdir: str, graph: Any = None, max_queue: int = 10, flush_secs: float = 120,
                 graph_def: Any = None, filename_suffix: str | None = None, session: Any = None):
        from torchestimator._engine.summary import (  # lazy: heavy (torchestimator._engine.summary, 205 ms)
            SummaryWriter,
        )

        self._logdir = str(logdir)
        self._options = dict(max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix or "")
        self._writer = SummaryWriter(self._logdir, **self._options)
        if graph is not None or graph_def is not None:
            self.add_graph(graph if graph is not None else graph_def)

    def get_logdir(self) -> str:
        """Returns the directory where the event file is written."""
        return self._logdir

    def add_summary(self, summary: Any, global_step: Any = None) -> None:
        """Adds a `Summary` protocol buffer (or its serialized bytes) at `global_step`."""
        if isinstance(summary, (bytes, bytearray)):
            summary = proto("Summary").FromString(bytes(summary))
        self._writer.write_summary(summary, 0 if global_step is None else int(global_step))

    def add_event(self, event: Any) -> None:
        """Adds an `Event` protocol buffer to the event file."""
        self._writer.add_event(event)

    def add_session_log(self, session_log: Any, global_step: Any = None) -> None:
        """Adds a `SessionLog` protocol buffer at `global_step`."""

        self.add_event(proto("Event")(wall_time=time.time(), step=int(global_step or 0),
                                      session_log=session_log))

    def add_graph(self, graph: Any, global_step: Any = None, graph_def: Any = None) -> None:
        """Adds a `GraphDef` to the event file (there is no `tf.Graph`: functions run eagerly)."""

        graph = graph if graph is not None else graph_def
        if not isinstance(graph, proto("GraphDef")):
            raise TypeError(
                f"add_graph expects a GraphDef (tf.compat.v1.GraphDef); received "
                f"{type(graph).__name__}. There is no tf.Graph in torchestimator."
            )
        self.add_event(proto("Event")(wall_time=time.time(), step=int(global_step or 0),
                                      graph_def=graph.SerializeToString()))

    def add_run_metadata(self, run_metadata: Any, tag: str, global_step: Any = None) -> None:
        """Adds a `RunMetadata` under `tag` (as a `TaggedRunMetadata` event)."""

        tagged = proto("TaggedRunMetadata")(tag=tag, run_metadata=run_metadata.SerializeToString())
        self.add_event(proto("Event")(wall_time=time.time(), step=int(global_step or 0),
                                      tagged_run_metadata=tagged))

    def flush(self) -> None:
        """Flushes the event file to disk."""
        self._writer.flush()

    def close(self) -> None:
        """Flushes the event file to disk and closes it."""
        self._writer.close()

    def reopen(self) -> None:
        """Reopens a closed writer: a new event file in the same directory."""
        from torchestimator._engine.summary import (  # lazy: heavy (torchestimator._engine.summary, 205 ms)
            SummaryWriter,
        )

        if self._writer.closed:
            self._writer = SummaryWriter(self._logdir, **self._options)  # the constructor's settings

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class FileWriterCache:
    """Cache for file writers: one `FileWriter` per log directory."""

    _cache: dict[str, FileWriter] = {}

    @staticmethod
    def get(logdir: str) -> FileWriter:
        """Returns the FileWriter of `logdir` (made on first use)."""
        writer = FileWriterCache._cache.get(str(logdir))
        if writer is None:
            writer = FileWriterCache._cache[str(logdir)] = FileWriter(logdir)
        return writer

    @staticmethod
    def clear() -> None:
        """Clears the cached writers (closing them)."""
        for writer in FileWriterCache._cache.values():
            writer.close()
        FileWriterCache._cache.clear()


def __getattr__(name: str) -> Any:
    if name in ("Event", "SessionLog", "Summary", "SummaryDescription", "TaggedRunMetadata"):
        return proto(name)
    raise AttributeError(f"module 'torchestimator.compat.v1.summary' has no attribute {name!r}")
