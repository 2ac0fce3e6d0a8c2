"""The eager graph-context API: tf.group, tf.no_op, tf.control_dependencies, tf.init_scope,
tf.executing_eagerly, tf.device (with the device settings of tf.config) and tf.name_scope."""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

import torch

from torchestimator._engine.device_scope import (  # noqa: F401 - the tf.device stack, re-exported
    _SCOPES,
    placement_scope,
    scoped_device,
)
from torchestimator._engine.loop import default_device
from torchestimator._engine.train_op import NoOp, TrainOp
from torchestimator._engine.train_op import group as _group_train_ops
from torchestimator._ops.name_scopes import _SCOPE, current_name_scope
from torchestimator.errors import InvalidArgumentError


# ============================================================================ ordering
def group(*inputs: Any, **kwargs: Any) -> TrainOp:
    """Groups ops, as TF's `tf.group(*inputs, name=None)`: the train ops `minimize()` returned in
    a `model_fn` (run together when the step runs); variables and tensors (what `assign*`
    returned), None and `tf.no_op()` results already ran eagerly and add nothing.

    Returns:
        A train op running every grouped train op, or a `NoOp` when there is none.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"tf.group(): unknown keyword arguments {sorted(kwargs)}")
    op = _group_train_ops(*inputs)
    if isinstance(op, NoOp) and name:
        op.name = name
    return op


def no_op(name: str | None = None) -> NoOp:
    """Does nothing, as TF's `tf.no_op`; returns a `NoOp` (which `tf.group` and an
    `EstimatorSpec`'s `train_op` accept)."""
    return NoOp(name)


def control_dependencies(control_inputs: Any) -> contextlib.AbstractContextManager:
    """A context for ops that must run after `control_inputs` (or None), as TF's
    `tf.control_dependencies`: in eager execution those already ran, so it does nothing."""
    return contextlib.nullcontext()


def init_scope() -> contextlib.AbstractContextManager:
    """TF's `tf.init_scope`: lifts ops out of a function graph; eagerly there is none (no-op)."""
    return contextlib.nullcontext()


def executing_eagerly() -> bool:
    """Whether operations run eagerly: always True here (there is no graph mode)."""
    return True


# ============================================================================ tf.device
_DEVICE_TYPES = {"cpu": "cpu", "gpu": "gpu", "tpu": "cpu", "xla_cpu": "cpu", "xla_gpu": "gpu"}


def _parse_device(spec: str) -> tuple[str, int]:
    kind, index = None, 0
    for part in [p for p in spec.split("/") if p]:
        key, _, rest = part.partition(":")
        low = key.lower()
        if low in ("job", "replica", "task"):
            continue
        if low == "device":
            key, _, rest = rest.partition(":")
            low = key.lower()
        if low not in _DEVICE_TYPES:
            raise ValueError(
                f"Unknown attribute '{part}' is encountered while parsing the device spec: '{spec}'."
            )
        kind = _DEVICE_TYPES[low]
        if rest and rest != "*":
            if not rest.isdigit():
                raise ValueError(f"Failed to parse the device index in '{spec}'.")
            index = int(rest)
    return kind or "cpu", index


class _DeviceSettings:
    """Set through `tf.config`: the visible GPUs (None: all) and soft device placement."""

    visible_gpus: list[int] | None = None
    soft_placement = True


DEVICE_SETTINGS = _DeviceSettings()


def _resolve_device(spec: str) -> torch.device:
    kind, index = _parse_device(spec)
    if kind == "gpu":
        visible = DEVICE_SETTINGS.visible_gpus
        if visible is None or index < len(visible):
            physical = index if visible is None else visible[index]
            if torch.cuda.is_available() and physical < torch.cuda.device_count():
                return torch.device("cuda", physical)
            mps = getattr(torch.backends, "mps", None)
            if mps is not None and mps.is_available() and physical == 0:
                return torch.device("mps")
            stand_in = _accelerator_stand_in(physical)
            if stand_in is not None:
                return stand_in
        if not DEVICE_SETTINGS.soft_placement:
            raise InvalidArgumentError(
                None, None,
                f"Could not satisfy device specification '{spec}': there is no such GPU (soft "
                "device placement is off; see tf.config.set_soft_device_placement).",
            )
    return torch.device("cpu")


def creation_device() -> torch.device:
    """The device a variable, a layer's weight, a metric's state, an optimizer's slot or a
    feature-column table is created on, as TF places them: the innermost `tf.device` block's
    device, else the default device (`$TORCHESTIMATOR_DEVICE`, else CUDA when available, else
    the CPU). Read once, when the object is created."""
    stack = _SCOPES.stack
    if stack:
        return stack[-1]

    return default_device()


def _accelerator_stand_in(physical: int) -> torch.device | None:
    """A GPU asked for where torch sees none: the accelerator `$TORCHESTIMATOR_DEVICE` names
    (e.g. 'xpu', 'mps'), if any and it is not the CPU."""
    if physical != 0:
        return None
    name = os.environ.get("TORCHESTIMATOR_DEVICE")
    chosen = torch.device(name) if name else None
    return None if chosen is None or chosen.type in ("cpu", "cuda") else chosen


class device:  # noqa: N801 - TF's name
    """`tf.device(device_name)`: tensors created inside the block are placed on that device
    (`'/GPU:0'`, `'/device:GPU:1'`, `'/CPU:0'`, `'gpu'`, `'cpu'`; None does nothing), and so
    are the variables, layers' weights, metrics' state, optimizer slots and feature-column
    tables created there (`creation_device`). A GPU that is not there means the accelerator
    `$TORCHESTIMATOR_DEVICE` names, else the CPU (TF's soft placement)."""

    def __init__(self, device_name: str | None):
        if device_name is not None and not isinstance(device_name, str):
            if callable(device_name):
                raise RuntimeError(
                    "tf.device does not support functions when eager execution is enabled."
                )
            device_name = str(device_name)
        self.device = None if not device_name else _resolve_device(device_name)
        self._contexts: list = []

    def __enter__(self) -> device:
        context: Any = contextlib.nullcontext()
        if self.device is not None and not (
            self.device.type == "cpu" and torch.get_default_device().type == "cpu"
        ):
            context = self.device  # torch.device is a context manager for the default device
        context.__enter__()
        self._contexts.append(context)
        # variables, weights, slots and tables created in the block go there (`creation_device`)
        _SCOPES.stack.append(self.device if self.device is not None else creation_device())
        return self

    def __exit__(self, *exc: Any) -> None:
        _SCOPES.stack.pop()
        self._contexts.pop().__exit__(*exc)


# ============================================================================ names & modules
_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class name_scope:  # noqa: N801 - TF's name
    """`tf.name_scope(name)`: a context that prefixes the names of the `tf.Variable`s created in
    it ('outer/v:0'); entering returns the full scope name ('outer/inner/'). A name ending in
    '/' is absolute; '' returns to the top."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"name_scope: name must be a string; received {name!r}")
        if name and not _SCOPE_NAME.match(name):
            raise ValueError(
                f"'{name}' is not a valid scope name. A scope name has to match the following "
                "pattern: ^[A-Za-z0-9_.\\\\/>-]*$"
            )
        self._name = name
        self._previous: list[str] = []

    @property
    def name(self) -> str:
        """The name given to the scope."""
        return self._name

    def __enter__(self) -> str:
        previous = current_name_scope()
        name = self._name
        scope = "" if not name else name if name.endswith("/") else f"{previous}{name}/"
        self._previous.append(previous)
        _SCOPE.prefix = scope
        return scope

    def __exit__(self, *exc: Any) -> None:
        _SCOPE.prefix = self._previous.pop()
