"""torchestimator: TensorFlow's high-level API (Keras, Estimator, feature columns,
tf.data, distribution, export for serving) rebuilt on PyTorch.

    import torchestimator as tf

TensorFlow's core eager API is here too (`tf.constant`, `tf.Variable`,
`tf.reduce_mean`, `tf.matmul`, `tf.function`, ...): thin functions over torch
that take and return `torch.Tensor`s. Namespaces (`tf.keras`, `tf.estimator`,
`tf.data`, `tf.feature_column`, `tf.train`, `tf.math`, `tf.nn`, `tf.image`, ...)
load on first use.
"""

from __future__ import annotations

import importlib
import types as _types
from typing import Any

import torch as _torch

from torchestimator import _tf_logging
from torchestimator._dtypes import (
    TensorSpec,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
)
from torchestimator._gradient_tape import GradientTape
from torchestimator._ops.array_ops import *  # noqa: F403 - TF's top-level ops
from torchestimator._ops.control_ops import *  # noqa: F403
from torchestimator._ops.convert import constant
from torchestimator._ops.convert import convert_to_tensor_on_device as convert_to_tensor
from torchestimator._ops.creation import *  # noqa: F403
from torchestimator._ops.functional_ops import *  # noqa: F403
from torchestimator._ops.linalg_ops import *  # noqa: F403
from torchestimator._ops.math_ops import *  # noqa: F403
from torchestimator._ragged_tensor import RaggedTensor, RaggedTensorSpec
from torchestimator._sparse_tensor import SparseTensor
from torchestimator._tensor_numpy import install as _install_tensor_numpy
from torchestimator._variable import Variable

Tensor = _torch.Tensor  # a "tensor" is a torch.Tensor: isinstance(x, tf.Tensor) works
_install_tensor_numpy()  # t.numpy() reads any tensor, as TF's (see _tensor_numpy.py; opt-out)
newaxis = None

# The TensorFlow API level the package follows (tf.version.VERSION); the package's own release
# is tf.version.TORCHESTIMATOR_VERSION.
__version__ = "2.15.1"

_NAMESPACES = (
    "keras", "estimator", "data", "feature_column", "train", "compat", "datasets", "summary",
    "math", "linalg", "nn", "random", "image", "strings", "debugging", "config", "errors", "dtypes",
    "distribute", "saved_model", "io", "sparse", "training", "contrib", "migration", "version",
    "audio", "autograph", "signal", "lookup", "bitwise", "sets", "ragged",
    "experimental", "lite", "types", "test", "sysconfig", "autodiff", "profiler", "quantization",
)


# TF 2's top-level aliases of Keras pieces (tf.optimizers is tf.keras.optimizers, ...), and its
# initializer functions (tf.random_normal_initializer(stddev=0.05) is Keras' RandomNormal).
_KERAS_ALIASES = {
    "optimizers": "torchestimator.keras.optimizers", "losses": "torchestimator.keras.losses",
    "metrics": "torchestimator.keras.metrics", "initializers": "torchestimator.keras.initializers",
    "nest": "torchestimator._ops.nest",
}
_INITIALIZERS = {
    "random_normal_initializer": "RandomNormal", "random_uniform_initializer": "RandomUniform",
    "zeros_initializer": "Zeros", "ones_initializer": "Ones",
}


# TF's less common top-level ops, loaded on first use: name -> the _ops module defining it.
_LAZY_OPS = {
    **dict.fromkeys(("dynamic_partition", "dynamic_stitch", "parallel_stack"), "partition_ops"),
    **dict.fromkeys(("histogram_fixed_width", "histogram_fixed_width_bins"), "histogram_ops"),
    **dict.fromkeys(("space_to_batch", "space_to_batch_nd", "batch_to_space", "required_space_to_batch_paddings"),
                    "space_batch_ops"),
    **dict.fromkeys(("tuple", "timestamp", "get_current_name_scope", "inside_function", "is_symbolic_tensor",
                     "guarantee_const", "no_gradient", "grad_pass_through", "recompute_grad", "VariableAggregation",
                     "VariableSynchronization", "AggregationMethod"), "graph_compat"),
    **dict.fromkeys(("make_tensor_proto", "make_ndarray"), "tensor_protos"),
    **dict.fromkeys(("fingerprint", "bitcast"), "fingerprint_ops"),
    "edit_distance": "edit_distance_ops",
    "constant_initializer": "init_ops_v2",  # TF's own Constant(value=0, support_partition=False), not Keras
    **dict.fromkeys(("fftnd", "ifftnd", "rfftnd", "irfftnd"), "fft_nd_ops"),
}
# TF's top-level classes, scopes and refused names outside the ops (loaded on first use).
_API_EXTRAS = {
    **dict.fromkeys(("CriticalSection", "variable_creator_scope", "register_tensor_conversion_function",
                     "nondifferentiable_batch_function", "gradients", "hessians", "Graph", "Operation",
                     "import_graph_def", "load_library", "load_op_library", "RegisterGradient", "approx_top_k",
                     "tpu", "xla", "mlir", "tsl", "tools", "security", "graph_util", "queue", "raw_ops",
                     "dtensor"), "torchestimator._tf_extras"),
    "DeviceSpec": "torchestimator._device_spec",
    "random_index_shuffle": "torchestimator._random_index_shuffle",
    **dict.fromkeys(("IndexedSlices", "IndexedSlicesSpec"), "torchestimator._indexed_slices"),
    **dict.fromkeys(("TensorArray", "TensorArraySpec"), "torchestimator._tensor_array"),
    **dict.fromkeys(("TypeSpec", "SparseTensorSpec", "type_spec_from_value"), "torchestimator._type_spec"),
    "OptionalSpec": "torchestimator.data.optional",  # registers the Optional value type with it
    **dict.fromkeys(("qint8", "qint16", "qint32", "quint8", "quint16", "resource", "variant"),
                    "torchestimator._dtypes"),
    **dict.fromkeys(("extract_volume_patches", "matrix_square_root"),
                    "torchestimator.compat.v1._tf1_extras"),  # issue 32
}
complex128 = _torch.complex128
uint16, uint32, uint64 = _torch.uint16, _torch.uint32, _torch.uint64


def _taking_symbolic(name: str, value: Any) -> Any:
    """A lazily loaded top-level op, wrapped as the eager ones are (symbolic Keras tensors)."""
    if isinstance(value, _types.FunctionType) and name not in _symbolic_dispatch._NOT_OPS:
        return _symbolic_dispatch.wrap(value, name)
    return value


def __getattr__(name: str) -> Any:
    if name in _LAZY_OPS:
        value = _taking_symbolic(name, getattr(
            importlib.import_module(f"torchestimator._ops.{_LAZY_OPS[name]}"), name))
        globals()[name] = value
        return value
    if name in _API_EXTRAS:
        value = _taking_symbolic(name, getattr(importlib.import_module(_API_EXTRAS[name]), name))
        globals()[name] = value
        return value
    if name in _NAMESPACES:
        module = importlib.import_module(f"torchestimator.{name}")
        globals()[name] = module
        return module
    if name in _KERAS_ALIASES:
        module = importlib.import_module(_KERAS_ALIASES[name])
        globals()[name] = module
        return module
    if name == "as_string":  # tf.strings' ops load PyArrow: only when asked for
        from torchestimator._ops.string_ops import (  # lazy: heavy (torchestimator._ops.string_ops, 180 ms)
            as_string,
        )

        globals()[name] = _taking_symbolic(name, as_string)
        return globals()[name]
    if name == "get_logger":
        globals()[name] = _tf_logging.get_logger
        return _tf_logging.get_logger
    if name in _INITIALIZERS:
        value = getattr(importlib.import_module("torchestimator.keras.initializers"), _INITIALIZERS[name])
        globals()[name] = value
        return value
    raise AttributeError(f"module 'torchestimator' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_NAMESPACES) + list(_KERAS_ALIASES) + list(_INITIALIZERS)
                  + list(_LAZY_OPS) + list(_API_EXTRAS) + ["as_string", "get_logger"])


# Last: TF's top-level ops given symbolic Keras tensors record TFOpLambda layers
# (_ops/symbolic_dispatch.py; the namespaces tf.math, tf.nn, ... do the same).
from torchestimator._ops import symbolic_dispatch as _symbolic_dispatch  # noqa: E402

_symbolic_dispatch.wrap_namespace(globals(), "")
