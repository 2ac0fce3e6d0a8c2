"""TF1's variable store, as `tf.compat.v1` names it. It lives with `tf.train`
(`train._variable_store`, issue 27: `ExponentialMovingAverage` and TF1's global step use it);
this module re-exports its names (the same objects).
"""

from typing import Any

from torchestimator.train import _variable_store as _impl
from torchestimator.train._variable_store import (  # noqa: F401 (re-exported)
    _LAYER_KEY,
    _VARIABLE_KEY,
    AUTO_REUSE,
    _ReuseMode,
    _Store,
    _store,
    reset_default_graph,
)


def __getattr__(name: str) -> Any:
    """`_GLOBAL_STORE`: the store outside a model_fn, read from `train._variable_store` (which
    `reset_default_graph` rebinds)."""
    if name == "_GLOBAL_STORE":
        return _impl._GLOBAL_STORE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
