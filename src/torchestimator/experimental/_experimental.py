"""The pieces of `tf.experimental`: eager `async_scope`/`async_clear_error`, strict mode,
`function_executor_type`, and the refused names (extension types, dispatch, numpy, TensorRT,
DTensor, file-system plug-ins)."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

import torch

from torchestimator._refused import refuse, refused_module

_STRICT = {"enabled": False}


@contextlib.contextmanager
def async_scope() -> Iterator[None]:
    """TF's `tf.experimental.async_scope()`: a block in which ops may run asynchronously, with
    errors raised at the block's end at the latest. Ops here run synchronously, so an error is
    raised by the op itself and the block simply runs; on leaving, CUDA work is synchronized so
    every pending error has surfaced (as TF's scope waits for its ops)."""
    try:
        yield
    finally:
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()


def async_clear_error() -> None:
    """TF's `tf.experimental.async_clear_error()`: clears pending asynchronous errors so the
    program can go on. Ops here run synchronously and leave no pending error: nothing to clear."""


def enable_strict_mode() -> None:
    """TF's `tf.experimental.enable_strict_mode()`: deprecated behaviours raise instead of
    warning. Recorded (see `strict_mode_enabled`); deprecation warnings become errors, except
    those PyTorch raises about its own APIs from inside torch (`torch.jit.script`'s, which
    forward-mode autodiff, `tf.autodiff.ForwardAccumulator`, meets), which stay ignored as
    Python ignores them by default: they are no deprecated use of TF's API."""
    _STRICT["enabled"] = True
    warnings.simplefilter("error", DeprecationWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch(\.|$)")


def strict_mode_enabled() -> bool:
    """Whether `enable_strict_mode()` was called."""
    return _STRICT["enabled"]


@contextlib.contextmanager
def function_executor_type(executor_type: str | None) -> Iterator[None]:
    """TF's `tf.experimental.function_executor_type(executor_type)`: the executor tf.functions
    use inside the block. Functions run as Python here, so every executor type is accepted
    and the block runs unchanged."""
    if executor_type is not None and not isinstance(executor_type, str):
        raise TypeError(f"executor_type must be a string or None, got {executor_type!r}.")
    yield


_EXT = ("TensorFlow extension types are composite graph values: use a Python dataclass (or a "
        "torch tensor subclass) holding tensors, and tf.nest/torch.utils._pytree for structure")
_DISPATCH = ("TF op dispatch overrides TF's C++ ops: give your class a __torch_function__ (torch's "
             "dispatch), which every tf.* op here goes through")
_RAGGED = ("TF's ragged shape internals are not provided: use tf.RaggedTensor's row_splits / "
           "row_lengths, or a padded tensor with a mask")

ExtensionType = refuse("tf.experimental.ExtensionType", _EXT)
BatchableExtensionType = refuse("tf.experimental.BatchableExtensionType", _EXT)
ExtensionTypeSpec = refuse("tf.experimental.ExtensionTypeSpec", _EXT)
ExtensionTypeBatchEncoder = refuse("tf.experimental.ExtensionTypeBatchEncoder", _EXT)
extension_type = refused_module("tf.experimental.extension_type", "TF's extension types (refused).",
                                {"as_dict": _EXT})
dispatch_for_api = refuse("tf.experimental.dispatch_for_api", _DISPATCH)
dispatch_for_binary_elementwise_apis = refuse("tf.experimental.dispatch_for_binary_elementwise_apis", _DISPATCH)
dispatch_for_binary_elementwise_assert_apis = refuse(
    "tf.experimental.dispatch_for_binary_elementwise_assert_apis", _DISPATCH)
dispatch_for_unary_elementwise_apis = refuse("tf.experimental.dispatch_for_unary_elementwise_apis", _DISPATCH)
unregister_dispatch_for = refuse("tf.experimental.unregister_dispatch_for", _DISPATCH)
DynamicRaggedShape = refuse("tf.experimental.DynamicRaggedShape", _RAGGED)
RowPartition = refuse("tf.experimental.RowPartition", _RAGGED)
StructuredTensor = refuse("tf.experimental.StructuredTensor",
                          "StructuredTensor is not provided: keep records as a dict of tensors "
                          "(what tf.data and feature columns use)")
numpy = refuse("tf.experimental.numpy", "the tf.experimental.numpy API is not provided: use numpy "
                                        "itself, or torch (whose tensors every tf.* op here takes)")
tensorrt = refuse("tf.experimental.tensorrt", "TF-TensorRT converts TF graphs: export with "
                                              "torch.onnx and build a TensorRT engine from the ONNX file")
dtensor = refuse("tf.experimental.dtensor", "DTensor's mesh layouts do not apply: shard a model with "
                                            "tf.distribute strategies or torch.distributed.tensor")
register_filesystem_plugin = refuse(
    "tf.experimental.register_filesystem_plugin",
    "TensorFlow C++ file-system plug-ins do not load: tf.io.gfile, model_dir and tf.data read any "
    "fsspec URL (s3://, gs://, ...); install the fsspec implementation of your file system")
