"""`tf.distribute.experimental.MultiWorkerMirroredStrategy`: TF 2.15's deprecated experimental
form of `tf.distribute.MultiWorkerMirroredStrategy`, which takes the collective implementation
itself, `(communication=CommunicationImplementation.AUTO, cluster_resolver=None)`, rather than
the stable form's `(cluster_resolver=None, communication_options=None)`."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from torchestimator._tf_logging import get_logger
from torchestimator.distribute._communication import (
    CommunicationImplementation,
    CommunicationOptions,
)
from torchestimator.distribute._strategies import (
    MultiWorkerMirroredStrategy as _MultiWorkerMirroredStrategy,
)

_warned = threading.Event()  # TF's deprecation notice is logged once per process


def _warn_deprecated() -> None:
    """TF's `@deprecation.deprecated(None, ...)` notice, logged once (as TF's `warn_once`)."""
    if _warned.is_set():
        return
    _warned.set()
    frame = sys._getframe(1)  # __init__; its caller made the strategy (a subclass's __init__ calls it too)
    while frame.f_back is not None and frame.f_code.co_name == "__init__":
        frame = frame.f_back
    where = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
    get_logger().warning(
        "From %s: tf.distribute.experimental.MultiWorkerMirroredStrategy.__init__ is deprecated and will "
        "be removed in a future version.\nInstructions for updating:\nuse "
        "distribute.MultiWorkerMirroredStrategy instead", where)


class _ExperimentalMeta(type):
    """As TF's: every `tf.distribute.MultiWorkerMirroredStrategy` is an instance of the
    experimental class too (libraries check `isinstance` against either)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, _MultiWorkerMirroredStrategy)


class MultiWorkerMirroredStrategy(_MultiWorkerMirroredStrategy, metaclass=_ExperimentalMeta):
    """A distribution strategy for synchronous training on multiple workers
    (`tf.distribute.experimental.MultiWorkerMirroredStrategy`, deprecated in TF 2.15 for
    `tf.distribute.MultiWorkerMirroredStrategy`, which it is otherwise).

    Constructing it logs TF's deprecation notice once.

    Args:
        communication: the preferred collective implementation, a
            `tf.distribute.experimental.CommunicationImplementation` (`AUTO`, `RING` or
            `NCCL`; its name as a string is accepted too).
        cluster_resolver: a `TFConfigClusterResolver` or `SimpleClusterResolver`; None:
            torchrun's variables, else `TF_CONFIG`.
    """

    def __init__(self, communication: CommunicationImplementation | str = CommunicationImplementation.AUTO,
                 cluster_resolver: Any = None) -> None:
        _warn_deprecated()
        super().__init__(cluster_resolver, CommunicationOptions(implementation=communication))
