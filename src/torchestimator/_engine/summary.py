"""TensorBoard event files: the project's one summary writer.

`SummaryWriter(logdir)` writes `Event` protocol buffers into
`logdir/events.out.tfevents.<time>.<host>.<pid>.<n>.v2`, the name TF 2's
`tf.summary.create_file_writer` gives its files, using the `tensorboard`
package's own event-file writer and protos (nothing from TensorFlow). The
Keras `TensorBoard` callback and the Estimator's summaries both write through
it, so everything the project logs is read by the real TensorBoard.

Summaries are written in TF 2's format (a tensor plus plugin metadata, as
`tf.summary.scalar/histogram/text/image` write them); `scalar(...,
legacy=True)` writes TF 1's `simple_value` form instead, as
`tf.compat.v1.summary.scalar` did.

A `logdir` on an object store (`s3://...`, `memory://...`) cannot be appended
to: the event file is written in a local temporary folder and uploaded whole
(one object, replacing the previous upload) on every `flush()` and on
`close()`, as TF's GCS writer uploads on flush. TensorBoard reading the store
sees the events up to the last flush.

    with SummaryWriter("logs/train") as writer:
        writer.scalar("epoch_loss", 0.31, step=0)
        writer.histogram("dense/kernel_0/histogram", weights, step=0)
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import time
import zlib
from typing import Any

import numpy as np
import torch
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.histogram import metadata as histogram_metadata
from tensorboard.plugins.image import metadata as image_metadata
from tensorboard.plugins.scalar import metadata as scalar_metadata
from tensorboard.plugins.text import metadata as text_metadata
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from tensorboard.util import tensor_util

from torchestimator._engine import storage

__all__ = ["SummaryWriter", "DEFAULT_BUCKET_COUNT"]

#: Buckets of a histogram summary when none are given (TF 2's default).
DEFAULT_BUCKET_COUNT = 30

# Values counted at once by `histogram_buckets` (bounds its temporary memory).
_HISTOGRAM_CHUNK = 1 << 22

# The plugin name TensorBoard's graph dashboard reads a Keras model config under
# (TF's `keras_model_summary`), version "1".
_KERAS_MODEL_PLUGIN = "graph_keras_model"


class SummaryWriter:
    """Writes TensorBoard summaries (scalars, histograms, text, images) to an event file.

    Args:
        logdir: directory of the event file; created if missing.
        max_queue: events held in memory before the background thread must
            write them.
        flush_secs: how often, in seconds, pending events are flushed to disk.
        filename_suffix: appended to the event file's name (TF 2 uses ".v2").

    Use it as a context manager, or call `close()` when done. Every method
    takes an integer `step` (the x axis in TensorBoard).
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = ".v2",
    ) -> None:
        if not isinstance(logdir, (str, os.PathLike)) or not str(logdir):
            raise ValueError(
                f"SummaryWriter: `logdir` must be a non-empty directory path; received {logdir!r}."
            )
        self._logdir = os.fspath(logdir)
        self._remote: str | None = None  # the URL the local event file is uploaded to
        local_dir = self._logdir
        if "://" in self._logdir:
            if storage.is_url(self._logdir):
                self._remote = self._logdir
                local_dir = tempfile.mkdtemp(prefix="torchestimator-events-")
            else:
                local_dir = storage.local(self._logdir)
        if os.path.exists(local_dir) and not os.path.isdir(local_dir):
            raise ValueError(
                f"SummaryWriter: `logdir` {self._logdir!r} exists and is not a directory; "
                "pass a directory path."
            )
        self._local_dir = local_dir
        self._writer = EventFileWriter(
            local_dir,
            max_queue_size=max_queue,
            flush_secs=flush_secs,
            filename_suffix=filename_suffix,
        )
        self._closed = False

    # -- properties ---------------------------------------------------------------------------

    @property
    def logdir(self) -> str:
        """The directory this writer's event file is in."""
        return self._logdir

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._closed

    # -- summaries ----------------------------------------------------------------------------

    def scalar(
        self,
        tag: str,
        value: Any,
        step: int,
        *,
        legacy: bool = False,
        description: str | None = None,
    ) -> None:
        """Writes one number under `tag` at `step` (`tf.summary.scalar`).

        `value` is a Python number, a NumPy scalar or a one-element tensor (read
        from the device here). With `legacy=True` it is written as TF 1's
        `simple_value` (`tf.compat.v1.summary.scalar`).
        """
        _check_tag(tag)
        number = _as_float(value, tag)
        if legacy:
            summary = summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag=tag, simple_value=number)]
            )
        else:
            tensor = tensor_util.make_tensor_proto(np.array(number, dtype=np.float32))
            meta = scalar_metadata.create_summary_metadata(
                display_name=None, description=description
            )
            summary = summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag=tag, metadata=meta, tensor=tensor)]
            )
        self.write_summary(summary, step)

    def histogram(
        self,
        tag: str,
        values: Any,
        step: int,
        buckets: int | None = None,
        description: str | None = None,
    ) -> None:
        """Writes the distribution of `values` under `tag` at `step` (`tf.summary.histogram`).

        `values` is a tensor, array or list of any shape; `buckets` (default 30)
        equal-width buckets span [min, max] as in TF 2. Non-finite values are
        left out. The buckets are counted where the tensor lives; only
        `buckets` x 3 numbers are copied to the host.
        """
        _check_tag(tag)
        count = DEFAULT_BUCKET_COUNT if buckets is None else buckets
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(
                f"histogram {tag!r}: `buckets` must be a positive int; received {buckets!r}."
            )
        table = histogram_buckets(values, count, tag=tag)
        tensor = tensor_util.make_tensor_proto(table, dtype=np.float64)
        meta = histogram_metadata.create_summary_metadata(
            display_name=None, description=description
        )
        self.write_summary(
            summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag=tag, metadata=meta, tensor=tensor)]
            ),
            step,
        )

    def text(self, tag: str, text: str, step: int, description: str | None = None) -> None:
        """Writes a (Markdown) string under `tag` at `step` (`tf.summary.text`)."""
        _check_tag(tag)
        if not isinstance(text, (str, bytes)):
            raise TypeError(
                f"text summary {tag!r}: expected a str; received {type(text).__name__} {text!r}."
            )
        self._write_string_tensor(
            tag,
            text,
            step,
            text_metadata.create_summary_metadata(display_name=None, description=description),
        )

    def image(
        self,
        tag: str,
        images: Any,
        step: int,
        max_outputs: int = 3,
        description: str | None = None,
    ) -> None:
        """Writes images under `tag` at `step` (`tf.summary.image`).

        `images` has shape [k, h, w, c] (or [h, w, c] for one image) with c in
        1..4; floats are clipped to [0, 1] and scaled to 0..255 as TF does,
        uint8 is used as it is. At most `max_outputs` images are written, as PNG.
        """
        _check_tag(tag)
        array = _to_numpy(images)
        if array.ndim == 3:
            array = array[None]
        if array.ndim != 4 or array.shape[-1] not in (1, 2, 3, 4):
            raise ValueError(
                f"image summary {tag!r}: expected shape [k, h, w, c] with c in 1..4; "
                f"received shape {tuple(array.shape)}."
            )
        if array.dtype == np.uint8:
            pixels = array
        elif np.issubdtype(array.dtype, np.floating):
            pixels = (np.clip(np.nan_to_num(array), 0.0, 1.0) * 255.5).astype(np.uint8)
        else:
            raise TypeError(
                f"image summary {tag!r}: expected float pixels in [0, 1] or uint8; "
                f"received dtype {array.dtype}. Convert the images first."
            )
        k, height, width, _ = pixels.shape
        encoded = [encode_png(pixels[i]) for i in range(min(k, max_outputs))]
        tensor = tensor_util.make_tensor_proto(
            np.array([str(width).encode(), str(height).encode(), *encoded], dtype=object)
        )
        meta = image_metadata.create_summary_metadata(display_name=None, description=description)
        self.write_summary(
            summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag=tag, metadata=meta, tensor=tensor)]
            ),
            step,
        )

    def keras_model(self, tag: str, model_json: str, step: int = 0) -> None:
        """Writes a Keras model's JSON config, which TensorBoard's Graphs tab draws.

        This is TF's `keras_model_summary`: the conceptual graph of a Sequential
        or functional model, read from its `to_json()` config.
        """
        _check_tag(tag)
        meta = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(
                plugin_name=_KERAS_MODEL_PLUGIN, content=b"1"
            )
        )
        self._write_string_tensor(tag, model_json, step, meta)

    def write_summary(
        self, summary: summary_pb2.Summary, step: int, wall_time: float | None = None
    ) -> None:
        """Writes a ready-made `Summary` proto at `step` (for summaries this class does not build)."""
        self._check_open()
        event = event_pb2.Event(
            wall_time=time.time() if wall_time is None else wall_time,
            step=_as_step(step),
            summary=summary,
        )
        self._writer.add_event(event)

    def add_event(self, event: event_pb2.Event) -> None:
        """Writes a ready-made `Event` proto (e.g. a `graph_def` or a `session_log`)."""
        self._check_open()
        self._writer.add_event(event)

    # -- lifetime -----------------------------------------------------------------------------

    def flush(self) -> None:
        """Writes every pending event to disk."""
        if not self._closed:
            self._writer.flush()
            self._upload()

    def close(self) -> None:
        """Flushes and closes the event file; later writes raise. Closing twice is allowed."""
        if not self._closed:
            self._closed = True
            self._writer.close()
            if self._remote is not None:
                try:
                    self._upload()
                finally:
                    shutil.rmtree(self._local_dir, ignore_errors=True)

    def _upload(self) -> None:
        """Copies the local event file whole to the store (`logdir` a URL; else nothing)."""
        if self._remote is None:
            return

        storage.makedirs(self._remote)
        for name in os.listdir(self._local_dir):
            with open(os.path.join(self._local_dir, name), "rb") as f:
                storage.write_bytes(storage.join(self._remote, name), f.read())

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SummaryWriter(logdir={self._logdir!r}{', closed' if self._closed else ''})"

    # -- helpers ------------------------------------------------------------------------------

    def _write_string_tensor(
        self, tag: str, value: str | bytes, step: int, meta: summary_pb2.SummaryMetadata
    ) -> None:
        data = value.encode("utf-8") if isinstance(value, str) else value
        tensor = tensor_util.make_tensor_proto(np.array(data, dtype=object))
        self.write_summary(
            summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag=tag, metadata=meta, tensor=tensor)]
            ),
            step,
        )

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(
                f"SummaryWriter for {self._logdir!r} is closed; create a new SummaryWriter to write more."
            )


def histogram_buckets(
    values: Any, bucket_count: int = DEFAULT_BUCKET_COUNT, tag: str = "values"
) -> np.ndarray:
    """Returns TF 2's histogram table of `values`: a float64 array [bucket_count, 3] of
    (left edge, right edge, count).

    Equal-width buckets from min to max, the maximum counted in the last
    bucket; when every value is equal, every edge is that value and the last
    bucket holds the count; no values give all zeros. Values that are not all
    finite (NaN or infinite weights) give NaN edges with every value counted in
    the last bucket, as TF 2's table (whose min and max are then NaN or
    infinite) is broken too: a histogram never hides a NaN behind the finite
    rest. Large tensors are counted in chunks, so the extra memory stays bounded.
    """
    if isinstance(values, torch.Tensor):
        data = values.detach().reshape(-1)
    else:
        try:
            data = torch.from_numpy(np.asarray(values, dtype=np.float64).reshape(-1))
        except (TypeError, ValueError) as error:
            raise TypeError(
                f"histogram {tag!r}: expected numbers (a tensor, array or list); "
                f"received {type(values).__name__}: {error}"
            ) from None
    chunks = [chunk.double() for chunk in data.split(_HISTOGRAM_CHUNK)]
    chunks = [chunk for chunk in chunks if chunk.numel()]
    total = sum(chunk.numel() for chunk in chunks)
    if total == 0:
        return np.zeros((bucket_count, 3), dtype=np.float64)
    if not all(bool(torch.isfinite(chunk).all()) for chunk in chunks):
        table = np.full((bucket_count, 3), np.nan, dtype=np.float64)
        table[:, 2] = 0.0
        table[-1, 2] = total
        return table
    extremes = torch.stack([torch.stack(torch.aminmax(chunk)) for chunk in chunks]).tolist()
    low = min(pair[0] for pair in extremes)
    high = max(pair[1] for pair in extremes)
    if high == low:
        table = np.zeros((bucket_count, 3), dtype=np.float64)
        table[:, 0] = low
        table[:, 1] = low
        table[-1, 2] = total
        return table
    width = (high - low) / bucket_count
    counts = torch.zeros(bucket_count, dtype=torch.long, device=data.device)
    for chunk in chunks:
        index = torch.floor((chunk - low) / width).long().clamp_(0, bucket_count - 1)
        counts += torch.bincount(index, minlength=bucket_count)
    edges = np.linspace(low, high, bucket_count + 1)
    return np.stack([edges[:-1], edges[1:], counts.cpu().numpy().astype(np.float64)], axis=1)


def encode_png(pixels: np.ndarray) -> bytes:
    """Returns the PNG bytes of one uint8 image of shape [h, w, c], c in 1..4 (no dependency)."""
    height, width, channels = pixels.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = np.ascontiguousarray(pixels, dtype=np.uint8).reshape(height, width * channels)
    raw = b"".join(b"\x00" + row.tobytes() for row in rows)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _check_tag(tag: Any) -> None:
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"Summary `tag` must be a non-empty str; received {tag!r}.")


def _as_step(step: Any) -> int:
    if isinstance(step, bool):
        raise TypeError(f"Summary `step` must be an int; received {step!r}.")
    if isinstance(step, torch.Tensor) and step.numel() == 1 and not step.is_floating_point():
        return int(step.item())
    if isinstance(step, (int, np.integer)):
        return int(step)
    raise TypeError(
        f"Summary `step` must be an int (e.g. the epoch or the global step); "
        f"received {type(step).__name__} {step!r}."
    )


def _as_float(value: Any, tag: str) -> float:
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(
                f"scalar summary {tag!r}: expected a single number; received a tensor of shape "
                f"{tuple(value.shape)}. Reduce it (e.g. .mean()) first."
            )
        return float(value.detach().reshape(()).item())
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise ValueError(
                f"scalar summary {tag!r}: expected a single number; received an array of shape "
                f"{value.shape}. Reduce it first."
            )
        value = value.reshape(()).item()
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return float(value)
    raise TypeError(
        f"scalar summary {tag!r}: expected a number; received {type(value).__name__} {value!r}."
    )


def _to_numpy(values: Any) -> np.ndarray:
    if isinstance(values, torch.Tensor):
        return values.detach().cpu().numpy()
    return np.asarray(values)
