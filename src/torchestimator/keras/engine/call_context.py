"""Per-thread state of the layer call in progress: the `training` flag seen by nested
layers, whether a symbolic shape trace is running, and the generation of activity losses."""

from __future__ import annotations

import threading


class CallContext(threading.local):
    """`training` inherited by nested calls; `tracing` during symbolic shape inference."""

    def __init__(self) -> None:
        self.training: bool | None = None
        self.tracing: bool = False
        self.depth: int = 0
        self.generation: int = 0
        self.losses_generation: int = -1  # the generation in which add_loss/activity losses ran


CONTEXT = CallContext()


#: Whether any layer weight was made on an accelerator in this process (`add_weight`); until
#: then a top-level call skips the host-input check (`_layer_call._host_inputs_to_weights`), so
#: CPU-only programs pay one list read per top-level call for it.
WEIGHTS_OFF_HOST = [False]
