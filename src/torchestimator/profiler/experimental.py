"""`tf.profiler.experimental` over `torch.profiler`: `start(logdir)` / `stop()` (or the
`Profile(logdir)` block) profile the ops run in between and write a Chrome trace to
`<logdir>/plugins/profile/<run>/<host>.pt.trace.json`, where TensorBoard's profile tab (the
PyTorch profiler plugin, `torch-tb-profiler`) and chrome://tracing / Perfetto read it;
`Trace(name)` marks a region (a named event in the trace). TF's remote profiling (`client`,
`server`) is refused by name."""

from __future__ import annotations

import collections
import datetime
import os
import socket
from typing import Any

import torch

from torchestimator._refused import refused_module
from torchestimator.errors import UnavailableError

_STATE: dict[str, Any] = {"profiler": None, "logdir": None}


class ProfilerOptions(collections.namedtuple("ProfilerOptions", [
        "host_tracer_level", "python_tracer_level", "device_tracer_level", "delay_ms"])):
    """Options for finer control over the profiler (TF's `ProfilerOptions(host_tracer_level=2,
    python_tracer_level=0, device_tracer_level=1, delay_ms=None)`): `python_tracer_level=1`
    records Python call stacks, `device_tracer_level=0` leaves the GPU out."""

    def __new__(cls, host_tracer_level: int = 2, python_tracer_level: int = 0, device_tracer_level: int = 1,
                delay_ms: int | None = None) -> ProfilerOptions:
        return super().__new__(cls, host_tracer_level, python_tracer_level, device_tracer_level, delay_ms)


def start(logdir: str, options: ProfilerOptions | None = None) -> None:
    """Start profiling TensorFlow performance; the trace is written to `logdir` by `stop()`."""
    if _STATE["profiler"] is not None:
        raise UnavailableError(None, None, "Another profiler is running.")
    options = options or ProfilerOptions()
    activities = [torch.profiler.ProfilerActivity.CPU]
    if options.device_tracer_level and torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    profiler = torch.profiler.profile(activities=activities, with_stack=bool(options.python_tracer_level),
                                      record_shapes=options.host_tracer_level >= 2)
    profiler.__enter__()
    _STATE.update(profiler=profiler, logdir=str(logdir))


def stop(save: bool = True) -> str | None:
    """Stops the current profiling session and (with `save`) writes the trace; returns the
    trace file's path (None when not saved)."""
    profiler = _STATE["profiler"]
    if profiler is None:
        raise UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
    profiler.__exit__(None, None, None)
    logdir = _STATE["logdir"]
    _STATE.update(profiler=None, logdir=None)
    if not save:
        return None
    run = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S")
    folder = os.path.join(logdir, "plugins", "profile", run)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{socket.gethostname()}.pt.trace.json")
    profiler.export_chrome_trace(path)
    return path


class Profile:
    """Context-manager profile API (TF's `tf.profiler.experimental.Profile(logdir, options=None)`):
    `start` on entry, `stop` on exit."""

    def __init__(self, logdir: str, options: ProfilerOptions | None = None):
        self._logdir = logdir
        self._options = options

    def __enter__(self) -> Profile:
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc: Any) -> None:
        stop()


class Trace:
    """Context manager that generates a trace event in the profiler (TF's
    `tf.profiler.experimental.Trace(name, **kwargs)`): the block appears as an event `name`
    (with `key=value` of the keyword arguments, as TF's TraceMe)."""

    def __init__(self, name: str, **kwargs: Any):
        label = name if not kwargs else name + "#" + ",".join(f"{k}={v}" for k, v in kwargs.items()) + "#"
        self._record = torch.profiler.record_function(label)

    def __enter__(self) -> Trace:
        self._record.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._record.__exit__(*exc)

    def set_metadata(self, **kwargs: Any) -> None:
        """TF's extra metadata of the event: recorded in its name only when given at creation."""


_REMOTE = ("TF's remote profiling service does not exist here: profile in the process itself with "
           "tf.profiler.experimental.start/stop (or torch.profiler) and open the trace in TensorBoard")
client = refused_module("tf.profiler.experimental.client", "TF's remote profiler client (refused).",
                        {"trace": _REMOTE, "monitor": _REMOTE})
server = refused_module("tf.profiler.experimental.server", "TF's profiler server (refused).", {"start": _REMOTE})

__all__ = ["Profile", "ProfilerOptions", "Trace", "client", "server", "start", "stop"]
