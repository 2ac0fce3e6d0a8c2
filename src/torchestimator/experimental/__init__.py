"""`tf.experimental`: `Optional`, `dlpack`, the float8/int4 dtypes, `async_scope`,
`async_clear_error`, `enable_strict_mode`, `function_executor_type`. TF's extension types,
op dispatch, `numpy`, TensorRT, DTensor and file-system plug-ins are refused by name (calling
one raises, saying what to write instead; docs/refusals.md lists them)."""

from __future__ import annotations

from torchestimator._dtypes import float8_e4m3fn, float8_e5m2, int4, uint4
from torchestimator.data.experimental import Optional
from torchestimator.experimental import dlpack
from torchestimator.experimental._experimental import (
    BatchableExtensionType,
    DynamicRaggedShape,
    ExtensionType,
    ExtensionTypeBatchEncoder,
    ExtensionTypeSpec,
    RowPartition,
    StructuredTensor,
    async_clear_error,
    async_scope,
    dispatch_for_api,
    dispatch_for_binary_elementwise_apis,
    dispatch_for_binary_elementwise_assert_apis,
    dispatch_for_unary_elementwise_apis,
    dtensor,
    enable_strict_mode,
    extension_type,
    function_executor_type,
    numpy,
    register_filesystem_plugin,
    tensorrt,
    unregister_dispatch_for,
)

__all__ = [
    "BatchableExtensionType", "DynamicRaggedShape", "ExtensionType", "ExtensionTypeBatchEncoder",
    "ExtensionTypeSpec", "Optional", "RowPartition", "StructuredTensor", "async_clear_error",
    "async_scope", "dispatch_for_api", "dispatch_for_binary_elementwise_apis",
    "dispatch_for_binary_elementwise_assert_apis", "dispatch_for_unary_elementwise_apis", "dlpack",
    "dtensor", "enable_strict_mode", "extension_type", "float8_e4m3fn", "float8_e5m2",
    "function_executor_type", "int4", "numpy", "register_filesystem_plugin", "tensorrt", "uint4",
    "unregister_dispatch_for",
]
