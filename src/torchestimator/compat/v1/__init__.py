"""`tf.compat.v1`: the TF1 APIs a TF1 `model_fn` uses, on PyTorch. Namespaces load on first use.

Besides the namespaces: TF1's variable store (`get_variable`, `variable_scope`,
`get_variable_scope`, `AUTO_REUSE`, `trainable_variables`, `global_variables`,
`reset_default_graph`, `get_collection`, `GraphKeys`) and initializer names (`glorot_uniform_initializer`, ...),
see `compat/v1/_variable_scope.py`.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMESPACES = {
    "train": "torchestimator.compat.v1.train",
    "losses": "torchestimator.compat.v1.losses",
    "metrics": "torchestimator.compat.v1.metrics",
    "summary": "torchestimator.compat.v1.summary",
    "estimator": "torchestimator.compat.v1.estimator",
    "feature_column": "torchestimator.feature_column.compat_v1",
    "layers": "torchestimator.compat.v1.layers",
    "logging": "torchestimator.compat.v1.logging",
}

_VARIABLE_SCOPE = "torchestimator.compat.v1._variable_scope"
_NAMES = {
    name: _VARIABLE_SCOPE
    for name in (
        "AUTO_REUSE", "VariableScope", "get_variable", "variable_scope", "get_variable_scope",
        "trainable_variables", "global_variables", "reset_default_graph", "GraphKeys",
        "get_collection", "get_collection_ref", "add_to_collection", "add_to_collections",
        "constant_initializer",
        "glorot_normal_initializer", "glorot_uniform_initializer", "ones_initializer",
        "orthogonal_initializer", "random_normal_initializer", "random_uniform_initializer",
        "truncated_normal_initializer", "variance_scaling_initializer", "zeros_initializer",
    )
}
_NAMES["get_logger"] = "torchestimator._tf_logging"
_NAMES.update({name: "torchestimator.version" for name in (
    "VERSION", "GIT_VERSION", "COMPILER_VERSION", "CXX_VERSION", "CXX11_ABI_FLAG", "MONOLITHIC_BUILD",
    "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER")})
# A placeholder describes a serving input receiver's input (there is no graph to feed).
_NAMES["placeholder"] = "torchestimator.estimator.export._receivers"


def __getattr__(name: str) -> Any:
    if name in _NAMESPACES:
        module = importlib.import_module(_NAMESPACES[name])
        globals()[name] = module
        return module
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'torchestimator.compat.v1' has no attribute {name!r}")
