"""TF 2.15 top-level names that are neither ops nor namespaces: `tf.CriticalSection`,
`tf.variable_creator_scope`, `tf.register_tensor_conversion_function`,
`tf.nondifferentiable_batch_function`, and the refused top-level names and modules (TF's graph,
TPU, XLA, MLIR, DTensor, raw ops, queues: see `_refused.py` and docs/refusals.md)."""

from __future__ import annotations

import contextlib
import functools
import numbers
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator import _variable
from torchestimator._ops import convert as _convert
from torchestimator._ops import nest
from torchestimator._refused import RefusedName, refuse, refused_module
from torchestimator.compat.v1._refusals import REFUSED as _V1_REFUSED


# --------------------------------------------------------------------------------------------
# CriticalSection
# --------------------------------------------------------------------------------------------
class CriticalSection:
    """TF's `tf.CriticalSection(name=None, shared_name=None, critical_section_def=None,
    import_scope=None)`: `execute(fn)` runs `fn` holding the section's lock, so no two
    executions of one section overlap (across threads). Executing a section from inside its own
    execution is a `ValueError`, as TF's deadlock check."""

    def __init__(self, name: str | None = None, shared_name: str | None = None,
                 critical_section_def: Any = None, import_scope: Any = None):
        if critical_section_def is not None:
            raise ValueError("tf.CriticalSection: critical_section_def is a TF1 graph proto; "
                             "create the section with name= only.")
        self._name = name or shared_name or "CriticalSection"
        self._lock = threading.Lock()
        self._owner: int | None = None

    @property
    def name(self) -> str:
        """The section's name."""
        return self._name

    def execute(self, fn: Callable[[], Any], exclusive_resource_access: bool = True,
                name: str | None = None) -> Any:
        """Runs `fn()` inside the critical section and returns its outputs (TF's `execute`)."""
        if self._owner == threading.get_ident():
            raise ValueError(
                f"Attempting to lock a CriticalSection ({self._name}) in which we are already "
                "running. This is illegal and may cause deadlocks.")
        with self._lock:
            self._owner = threading.get_ident()
            try:
                return fn()
            finally:
                self._owner = None


# --------------------------------------------------------------------------------------------
# variable_creator_scope
# --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def variable_creator_scope(variable_creator: Callable[..., Any]) -> Iterator[None]:
    """TF's `tf.variable_creator_scope(variable_creator)`: inside the block every
    `tf.Variable(...)` calls `variable_creator(next_creator, **kwargs)` (kwargs: the variable's
    arguments, `initial_value`, `trainable`, `name`, `dtype`, `shape`, ...); the creator returns
    the variable, usually `next_creator(**kwargs)` with changed arguments. Scopes nest: the
    innermost creator runs first."""
    _variable.VARIABLE_CREATORS.append(variable_creator)
    try:
        yield
    finally:
        _variable.VARIABLE_CREATORS.remove(variable_creator)


# --------------------------------------------------------------------------------------------
# register_tensor_conversion_function
# --------------------------------------------------------------------------------------------
_UNREGISTRABLE = (numbers.Number, np.ndarray, np.generic, str, bytes, list, tuple, torch.Tensor)


def register_tensor_conversion_function(base_type: Any, conversion_func: Callable[..., Any],
                                        priority: int = 100) -> None:
    """TF's `tf.register_tensor_conversion_function(base_type, conversion_func, priority=100)`:
    `tf.convert_to_tensor` (and every op taking its operands through it) converts an instance
    of `base_type` by `conversion_func(value, dtype=None, name=None, as_ref=False)`, which
    returns a tensor (or NotImplemented to let the next function try). Lower priorities are
    tried first."""
    types_ = base_type if isinstance(base_type, tuple) else (base_type,)
    if not all(isinstance(t, type) for t in types_):
        raise TypeError(f"base_type must be a type or a tuple of types, got {base_type!r}.")
    if any(issubclass(t, _UNREGISTRABLE) for t in types_):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars "
                        f"and arrays (got {base_type!r}).")
    if not callable(conversion_func):
        raise TypeError(f"conversion_func must be callable, got {conversion_func!r}.")
    _convert._CONVERSION_FUNCTIONS.append((int(priority), base_type, conversion_func))
    _convert._CONVERSION_FUNCTIONS.sort(key=lambda entry: entry[0])


# --------------------------------------------------------------------------------------------
# nondifferentiable_batch_function
# --------------------------------------------------------------------------------------------
def nondifferentiable_batch_function(num_batch_threads: int, max_batch_size: int,
                                     batch_timeout_micros: int, allowed_batch_sizes: Any = None,
                                     max_enqueued_batches: int = 10, autograph: bool = True,
                                     enable_large_batch_splitting: bool = True) -> Callable[[Callable], Callable]:
    """TF's `tf.nondifferentiable_batch_function(...)` decorator. TF batches concurrent graph
    calls together; eagerly each call runs the function on its own inputs (the same outputs),
    and the outputs carry no gradient, as TF's."""
    if allowed_batch_sizes is not None:
        sizes = list(allowed_batch_sizes)
        if sizes != sorted(sizes) or sizes[-1] != max_batch_size:
            raise ValueError("allowed_batch_sizes must be increasing and end with max_batch_size "
                             f"({max_batch_size}); got {sizes}.")

    def decorator(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def batched(*args: Any) -> Any:
            outputs = fn(*args)
            return nest.map_structure(
                lambda t: t.detach() if isinstance(t, torch.Tensor) else t, outputs)
        return batched
    return decorator


# --------------------------------------------------------------------------------------------
# Refused top-level names and modules
# --------------------------------------------------------------------------------------------
_TPU = ("TPUs are not supported: train on GPUs or CPUs with tf.distribute.MirroredStrategy or "
        "MultiWorkerMirroredStrategy")
_XLA = "XLA compilation does not apply to PyTorch: use torch.compile on the model for compiled kernels"
_INTERNALS = "TensorFlow's internal {what} do not exist here; use the public tf.* API"

gradients = refuse("tf.gradients", _V1_REFUSED["gradients"])
hessians = refuse("tf.hessians", _V1_REFUSED["hessians"])
Graph = refuse("tf.Graph", _V1_REFUSED["Graph"])
Operation = refuse("tf.Operation", _V1_REFUSED["Operation"])
import_graph_def = refuse("tf.import_graph_def", _V1_REFUSED["import_graph_def"])
load_library = refuse("tf.load_library", _V1_REFUSED["load_library"])
load_op_library = refuse("tf.load_op_library", _V1_REFUSED["load_op_library"])
RegisterGradient = refuse("tf.RegisterGradient", _V1_REFUSED["RegisterGradient"])
approx_top_k = refuse("tf.approx_top_k", "approximate top-k is a TPU kernel: use tf.math.top_k "
                                          "(exact, as TF's CPU and GPU fallback)")

tpu = refused_module("tf.tpu", "TF's TPU API (refused).", {"XLAOptions": _TPU, "experimental": _TPU})
xla = refused_module("tf.xla", "TF's XLA API (refused).", {"experimental": _XLA})
mlir = refused_module("tf.mlir", "TF's MLIR API (refused).", {
    "experimental": _INTERNALS.format(what="MLIR passes") + " (torch.compile or torch.export for a graph)"})
tsl = refused_module("tf.tsl", "TF's TSL internals (refused).", {
    "protobuf": _INTERNALS.format(what="TSL protocol buffers")})
tools = refused_module("tf.tools", "TF's tools (refused).", {
    "compatibility": "tf_upgrade_v2 rewrites TF sources; torchestimator already runs TF 2.x code, so "
                     "run it as it is",
    "docs": _INTERNALS.format(what="documentation generators")})
security = refused_module("tf.security", "TF's fuzzing helpers (refused).", {
    "fuzzing": "TF's op fuzzing harness applies to TF's C++ kernels: fuzz with atheris or "
               "hypothesis directly"})
graph_util = refused_module("tf.graph_util", "TF's GraphDef helpers (refused).", {
    "import_graph_def": _V1_REFUSED["import_graph_def"]})
_QUEUE = "input queues are replaced by tf.data: build the input with tf.data.Dataset"
queue = refused_module("tf.queue", "TF1's input queues (refused).", {
    name: _QUEUE for name in ("FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
                              "RandomShuffleQueue")})
raw_ops = refuse("tf.raw_ops", "raw TensorFlow kernels do not exist on PyTorch: use the public op "
                               "(tf.math.add for AddV2, ...) or torch directly")
dtensor = refuse("tf.dtensor", "DTensor's mesh layouts do not apply: shard a model with "
                               "tf.distribute strategies or torch.distributed.tensor")

__all__ = [
    "CriticalSection", "variable_creator_scope", "register_tensor_conversion_function",
    "nondifferentiable_batch_function", "RefusedName",
]
