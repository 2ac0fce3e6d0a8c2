"""Per-thread state of the layer call in progress: the `training` flag seen by nested
layers, whether a symbolic shape trace is running, and the generation of activity losses."""

from __future__ import annotations

import threading
from typing import Any

import torch


class CallContext(threading.local):
    """`training` inherited by nested calls; `tracing` during symbolic shape inference."""

    def __init__(self) -> None:
        self.training: bool | None = None
        self.tracing: bool = False
        self.depth: int = 0
        self.generation: int = 0
        self.losses_generation: int = -1  # the generation in which add_loss/activity losses ran
        self.outer: Any = None  # the layer of the latest top-level call (read while depth > 0)
        self.trace_device: torch.device | None = None  # where a running shape trace runs


CONTEXT = CallContext()


def nested_call_device() -> torch.device | None:
    """Within a call of a model (or layer) whose weights are on an accelerator, that device: where
    a layer that makes its outputs on the host from host data (string lookups, hashing, text
    vectorization) puts them, so that the model's next layer finds them on its weights' device
    (TF copies the string ops' ids to the GPU); in a shape trace on an accelerator, the trace's
    device. None at top level -- a `tf.data` map, a direct call: the outputs stay on the host --
    and where the weights are on the CPU."""
    context = CONTEXT
    if context.tracing:
        device = context.trace_device
        return device if device is not None and device.type not in ("cpu", "meta") else None
    if not context.depth or context.outer is None or not WEIGHTS_OFF_HOST[0]:
        return None
    return accelerator_of_weights(context.outer)


def accelerator_of_weights(layer: torch.nn.Module) -> torch.device | None:
    """The device of `layer`'s first weight when that is an accelerator, else None (no weight,
    or weights on the CPU or meta)."""
    weight = next(layer.parameters(), None)
    if weight is None or weight.device.type in ("cpu", "meta"):
        return None
    return weight.device


#: Whether any layer weight was made on an accelerator in this process (`add_weight`); until
#: then a top-level call skips the host-input check (`_layer_call._host_inputs_to_weights`), so
#: CPU-only programs pay one list read per top-level call for it.
WEIGHTS_OFF_HOST = [False]
