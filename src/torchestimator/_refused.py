"""TF 2.15 public names outside `tf.compat.v1` that stand for machinery torchestimator does not
have (TPU, TFLite, XLA/MLIR/DTensor internals, raw ops, TF's in-process gRPC server, TF1 graph
pieces): using one raises `GraphMachineryError` naming it and saying what to write instead.

Every such name is registered in `REFUSED_NAMES` (full dotted name -> what to write instead);
`docs/refusals.md` lists them all and `tests/compat/v1/test_top_level.py` keeps the two in step.
The mechanism is `tf.compat.v1`'s (`compat/v1/_refusals.py`): the name exists, so a program
that mentions it imports, but calling it or reading any attribute of it raises.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

#: full TF name ("tf.lite.TFLiteConverter") -> what to write instead
REFUSED_NAMES: dict[str, str] = {}



class GraphMachineryError(RuntimeError):
    """Raised by a TF 1.x graph-machinery name (`Session`, `Graph`, queues, readers, ...)."""

class RefusedName:
    """Stands for a refused TF name: calling it, subclassing it or reading any attribute raises
    `GraphMachineryError` with the name and its replacement."""

    def __init__(self, full_name: str, instead: str):
        self.__name__ = full_name.rsplit(".", 1)[-1]
        self.__qualname__ = self.__name__
        self._full_name = full_name
        self._instead = instead

    def _refuse(self) -> Exception:
        return GraphMachineryError(
            f"{self._full_name} is TensorFlow machinery that torchestimator does not have: "
            f"{self._instead}. (docs/refusals.md lists every such name.)")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._refuse()

    def __mro_entries__(self, bases: tuple) -> tuple:
        raise self._refuse()

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") or attribute in ("_full_name", "_instead"):
            raise AttributeError(attribute)
        raise self._refuse()

    def __repr__(self) -> str:
        return f"<refused {self._full_name}>"


def refuse(full_name: str, instead: str) -> RefusedName:
    """Registers `full_name` as refused (for docs/refusals.md) and returns its stand-in."""
    REFUSED_NAMES[full_name] = instead
    return RefusedName(full_name, instead)


def refused_module(full_name: str, doc: str, members: dict[str, str]) -> types.ModuleType:
    """A module object `full_name` whose every listed member is refused (`members`: name ->
    what to write instead); other attributes are missing as in any module."""
    module = types.ModuleType(full_name.replace("tf.", "torchestimator.", 1), doc)
    for name, instead in members.items():
        setattr(module, name, refuse(f"{full_name}.{name}", instead))
    return module


#: the modules that refuse names with `refuse` (imported by `all_refused`)
REFUSING_MODULES = (
    "torchestimator._tf_extras",
    "torchestimator.experimental._experimental",
    "torchestimator.lite",
    "torchestimator.distribute._cross_device_ops",
    "torchestimator.config._remote",
    "torchestimator.test._test",
    "torchestimator.sysconfig",
    "torchestimator.profiler.experimental",
    "torchestimator.compat.v1._train_extras2",
    "torchestimator.estimator._tpu_refusal",
    "torchestimator.quantization._fake_quant",
)


def all_refused() -> dict[str, str]:
    """Every refused name (full TF name -> what to write instead), after importing every module
    that refuses some (for docs/refusals.md and its test)."""

    for module in REFUSING_MODULES:
        importlib.import_module(module)
    return dict(REFUSED_NAMES)
