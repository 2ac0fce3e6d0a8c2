"""`tf.compat.v1`: the TF1 APIs a TF1 `model_fn` uses, on PyTorch. Namespaces load on first use.

Besides the namespaces: TF1's variable store (`get_variable`, `variable_scope`,
`get_variable_scope`, `AUTO_REUSE`, `trainable_variables`, `global_variables`,
`reset_default_graph`, `get_collection`, `GraphKeys`) and initializer names (`glorot_uniform_initializer`, ...),
see `compat/v1/_variable_scope.py`.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import torchestimator as _torchestimator
from torchestimator.compat.v1 import _refusals, _renames

_NAMESPACES = {
    "train": "torchestimator.compat.v1.train",
    "losses": "torchestimator.compat.v1.losses",
    "metrics": "torchestimator.compat.v1.metrics",
    "summary": "torchestimator.compat.v1.summary",
    "estimator": "torchestimator.compat.v1.estimator",
    "feature_column": "torchestimator.compat.v1.feature_column",
    "layers": "torchestimator.compat.v1.layers",
    "logging": "torchestimator.compat.v1.logging",
}

_VARIABLE_SCOPE = "torchestimator.compat.v1._variable_scope"
_NAMES = {
    name: _VARIABLE_SCOPE
    for name in (
        "AUTO_REUSE", "VariableScope", "get_variable", "variable_scope", "get_variable_scope",
        "trainable_variables", "global_variables", "local_variables", "reset_default_graph",
        "GraphKeys", "get_collection", "get_collection_ref", "add_to_collection", "add_to_collections",
        "constant_initializer",
        "glorot_normal_initializer", "glorot_uniform_initializer", "ones_initializer",
        "orthogonal_initializer", "random_normal_initializer", "random_uniform_initializer",
        "truncated_normal_initializer", "variance_scaling_initializer", "zeros_initializer",
    )
}
_NAMES["get_logger"] = "torchestimator._tf_logging"
_NAMES["SparseFeature"] = "torchestimator.io._parse_spec"
_NAMES.update({name: "torchestimator.version" for name in (
    "VERSION", "GIT_VERSION", "COMPILER_VERSION", "CXX_VERSION", "CXX11_ABI_FLAG", "MONOLITHIC_BUILD",
    "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER")})
_NAMES.update({name: "torchestimator.compat.v1._api_types" for name in (
    "DeviceSpec", "QUANTIZED_DTYPES", "convert_to_tensor_or_indexed_slices")})
_NAMES["mixed_precision"] = "torchestimator.compat.v1._train_mixed_precision"
_NAMES.update({name: "torchestimator.quantization" for name in (
    "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient", "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient", "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient")})
# Issue 32: TF1 top-level ops (variable scatters, setdiff1d, patches, Print, count_up_to, ...).
_NAMES.update({name: "torchestimator.compat.v1._tf1_extras" for name in (
    "betainc", "polygamma", "setdiff1d", "batch_to_space_nd", "extract_image_patches",
    "extract_volume_patches", "matrix_square_root", "scatter_add", "scatter_sub", "scatter_mul",
    "scatter_div", "scatter_min", "scatter_max", "scatter_update", "scatter_nd_add",
    "scatter_nd_sub", "scatter_nd_update", "tensor_scatter_add", "tensor_scatter_sub",
    "tensor_scatter_update", "batch_gather", "batch_scatter_update", "decode_csv",
    "decode_json_example", "sparse_mask", "sparse_matmul", "verify_tensor_all_finite",
    "count_up_to", "dimension_value", "dimension_at_index", "Dimension", "Print",
    "no_regularizer", "uniform_unit_scaling_initializer", "string_to_hash_bucket")})
# A placeholder describes a serving input receiver's input (there is no graph to feed).
_NAMES["placeholder"] = "torchestimator.estimator.export._receivers"


def _resolve(name: str) -> Any:
    """The object `tf.compat.v1.<name>` stands for, or raises AttributeError. In order: a
    namespace, a name of this package's modules, a TF1 wrapper (`_sparse_ops`,
    `_tf1_signatures`, `_legacy_ops`: TF1 arguments and names), a TF2 function under its TF1
    name (`_renames`), a TF1 protocol buffer (`_protos`), a refused piece of graph machinery
    (`_refusals`), else the TF2 top-level name (`tf.compat.v1.reduce_sum` is TF1's,
    `tf.compat.v1.matmul` is `tf.matmul`)."""
    if name in _NAMESPACES:
        return importlib.import_module(_NAMESPACES[name])
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    if name.startswith("_"):
        raise AttributeError(name)
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:  # a sub-module (optimizers, ...)
        return importlib.import_module(f"{__name__}.{name}")
    from torchestimator.compat.v1 import (
        _legacy_ops,  # lazy: heavy (torchestimator.compat.v1._legacy_ops, 81 ms)
    )
    from torchestimator.compat.v1._sparse_ops import (  # lazy: heavy (torchestimator.compat.v1._sparse_ops, 86 ms)
        SPARSE_NAMES,
    )

    if name in SPARSE_NAMES:  # TF1's sparse_* names with TF1's argument names
        return SPARSE_NAMES[name]
    from torchestimator.compat.v1 import (
        _tf1_signatures,  # lazy: heavy (torchestimator.compat.v1._tf1_signatures, 400 ms)
    )

    if name in _tf1_signatures.NAMES:  # TF1's order and names of TF2 functions' arguments
        return _tf1_signatures.NAMES[name]
    value = getattr(_legacy_ops, name, None)
    if value is not None and callable(value) and getattr(value, "__module__", "") == _legacy_ops.__name__:
        return value
    if name in _legacy_ops.RENAMED:
        space, target = _legacy_ops.RENAMED[name]
        return getattr(getattr(_torchestimator, space) if space else _torchestimator, target)
    if name in _renames.IN_NAMESPACE:
        return getattr(getattr(_torchestimator, _renames.IN_NAMESPACE[name]), name)
    from torchestimator.compat.v1 import (
        _protos,  # lazy: heavy (torchestimator.compat.v1._protos, 176 ms)
    )

    if name in _protos.PROTOS:
        return _protos.proto(name)
    if name in _refusals.REFUSED:
        return _refusals.refused(name)
    if name in _TF2_TOP_LEVEL_EXCLUDED or not hasattr(_torchestimator, name):
        raise AttributeError(name)
    return getattr(_torchestimator, name)


#: TF2 top-level names that are not TF1's (tf.compat.v1 has its own, or none).
_TF2_TOP_LEVEL_EXCLUDED = frozenset({"version", "autograph", "get_logger"})


def __getattr__(name: str) -> Any:
    try:
        value = _resolve(name)
    except AttributeError as error:
        if error.args != (name,):  # raised while importing what the name stands for
            raise
        raise AttributeError(f"module 'torchestimator.compat.v1' has no attribute {name!r}") from None
    globals()[name] = value
    return value
