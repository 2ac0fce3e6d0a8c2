"""Symbolic shape inference: what a layer outputs for `KerasTensor` inputs, without data.

A layer that defines `compute_output_spec` or `compute_output_shape` answers
directly. Otherwise its `call` runs on zero-filled tensors of the `meta`
device (no memory, no FLOPs) with its weights swapped for meta copies by
`torch.func.functional_call`. Unknown dimensions are filled twice with
different sizes; output dimensions that differ between the two traces are
unknown (None). Layers that cannot run on meta, or whose sublayers are not
built yet (a subclassed model), are traced on small real tensors instead, on the
device of their weights (`trace_device`: where the weights they create are made).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops import nest
from torchestimator._ops.control_ops._context import creation_device
from torchestimator._ragged._spec import RaggedTensorSpec
from torchestimator._type_spec import SparseTensorSpec
from torchestimator.keras._ragged_inputs import materialize, spec_of
from torchestimator.keras._sparse_inputs import materialize as materialize_sparse
from torchestimator.keras._sparse_inputs import spec_of as sparse_spec_of
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.keras_tensor import KerasTensor

_BATCH_FILLS = (2, 3)
_DIM_FILLS = (83, 89)


def compute_output_spec(layer: Any, args: tuple, kwargs: dict) -> Any:
    """Returns the KerasTensor(s) that `layer(*args, **kwargs)` would produce."""
    if any(getattr(t, "ragged", False) or getattr(t, "sparse", False)
           for t in nest.flatten(args)):  # ragged / sparse: run the layer
        return _trace_output_spec(layer, args, kwargs)
    own = getattr(type(layer), "compute_output_spec", None)
    if own is not None:
        return layer.compute_output_spec(*args, **kwargs)
    if layer._overrides_compute_output_shape:
        shapes = nest.map_structure(
            lambda t: t.shape if isinstance(t, KerasTensor) else t, args[0]
        )
        return _specs_from_shapes(layer.compute_output_shape(shapes), layer._compute_dtype)
    return _trace_output_spec(layer, args, kwargs)


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in value
    )


def _specs_from_shapes(shapes: Any, dtype: torch.dtype) -> Any:
    if _is_shape(shapes):
        return KerasTensor(tuple(shapes), dtype)
    if isinstance(shapes, dict):
        return {k: _specs_from_shapes(v, dtype) for k, v in shapes.items()}
    return [_specs_from_shapes(s, dtype) for s in shapes]


def _all_built(layer: Any) -> bool:
    return all(sub.built for sub in layer._flatten_layers())


def _trace_output_spec(layer: Any, args: tuple, kwargs: dict) -> Any:
    kwargs = dict(kwargs)
    if "training" in kwargs:
        kwargs["training"] = False
    errors = []
    if _all_built(layer):
        try:
            first = _run(layer, args, kwargs, 0, "meta")
            second = _run(layer, args, kwargs, 1, "meta")
            return _merge(first, second)
        except Exception as e:  # an op without a meta kernel: trace on real tensors instead
            errors.append(e)
    device = trace_device(layer)
    try:
        first = _run(layer, args, kwargs, 0, device)
        second = _run(layer, args, kwargs, 1, device)
        return _merge(first, second)
    except Exception as e:
        shapes = nest.map_structure(
            lambda t: t.shape if isinstance(t, KerasTensor) else t, args[0]
        )
        raise type(e)(
            f'Exception encountered when calling layer "{layer.name}" '
            f"(type {type(layer).__name__}) on symbolic inputs of shape {shapes}: {e}"
        ) from e


def trace_device(layer: torch.nn.Module) -> torch.device:
    """The device `layer` is traced on when it cannot run on meta: that of its weights (the
    first weight or buffer found), else the device the weights it creates while traced are made
    on (`creation_device`: the `tf.device` block's, else the default device), so that the zeros
    it is traced on meet its weights on one device."""
    for tensor in layer.parameters():
        if tensor.device.type != "meta":
            return tensor.device
    for tensor in layer.buffers():
        if tensor.device.type != "meta":
            return tensor.device
    return creation_device()


def _materialize(value: Any, which: int, device: str | torch.device) -> Any:
    if not isinstance(value, KerasTensor):
        return value
    shape = tuple(
        (_BATCH_FILLS if i == 0 else _DIM_FILLS)[which] if d is None else d
        for i, d in enumerate(value.shape)
    )
    if value.dtype is _dtypes.string:
        return np.full(shape, "", dtype=object)
    tensor = torch.zeros(shape, dtype=value.dtype, device=device)
    if getattr(value, "ragged", False):  # Input(ragged=True): a RaggedTensor (keras/_ragged_inputs.py)
        return materialize(tensor)
    if getattr(value, "sparse", False):  # Input(sparse=True): a SparseTensor (keras/_sparse_inputs.py)
        return materialize_sparse(tensor)
    if value._keras_mask is not None:
        tensor._keras_mask = _materialize(value._keras_mask, which, device)
    return tensor


def _run(layer: Any, args: tuple, kwargs: dict, which: int, device: str | torch.device) -> Any:
    real_args = nest.map_structure(lambda v: _materialize(v, which, device), args)
    real_kwargs = nest.map_structure(lambda v: _materialize(v, which, device), kwargs)
    previous, previous_device = CONTEXT.tracing, CONTEXT.trace_device
    CONTEXT.tracing = True
    CONTEXT.trace_device = torch.device(device)  # host-data layers put their outputs there too
    try:
        with torch.no_grad():
            if device == "meta":
                state = {
                    name: torch.empty_like(t, device="meta")
                    for name, t in list(layer.named_parameters(remove_duplicate=False))
                    + list(layer.named_buffers(remove_duplicate=False))
                }
                outputs = torch.func.functional_call(
                    layer, state, tuple(real_args), real_kwargs, strict=False
                )
            else:
                buffers = {
                    name: t.clone() for name, t in layer.named_buffers(remove_duplicate=False)
                }
                if buffers:
                    outputs = torch.func.functional_call(
                        layer, buffers, tuple(real_args), real_kwargs, strict=False
                    )
                else:
                    outputs = layer(*real_args, **real_kwargs)
    finally:
        CONTEXT.tracing, CONTEXT.trace_device = previous, previous_device
    return outputs


def _merge(first: Any, second: Any) -> Any:
    flat_a, flat_b = nest.flatten(first), nest.flatten(second)

    def to_spec(a: Any, b: Any) -> Any:
        if isinstance(a, torch.Tensor):
            shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
            spec = KerasTensor(shape, a.dtype)
            mask_a, mask_b = getattr(a, "_keras_mask", None), getattr(b, "_keras_mask", None)
            if isinstance(mask_a, torch.Tensor) and isinstance(mask_b, torch.Tensor):
                spec._keras_mask = to_spec(mask_a, mask_b)
            return spec
        if isinstance(a, np.ndarray):
            shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
            return KerasTensor(shape, _dtypes.as_dtype(a.dtype))
        if type(a).__name__ == "RaggedTensor":
            return spec_of(a, b)
        if type(a).__name__ == "SparseTensor":
            return sparse_spec_of(a, b)
        return a

    return nest.pack_sequence_as(first, [to_spec(a, b) for a, b in zip(flat_a, flat_b)])


def output_signature(layer: Any, input_spec: Any) -> Any:
    """The `TensorSpec`s (`SparseTensorSpec`s, `RaggedTensorSpec`s for sparse and ragged
    outputs) of `layer`'s outputs for inputs of `input_spec` (a `TensorSpec`,
    `SparseTensorSpec` or `RaggedTensorSpec`, or a structure of them), found as a symbolic
    call finds them: a layer whose output dtype is its own (the preprocessing layers:
    int64 ids, strings) answers with it."""
    def to_keras(spec: Any) -> KerasTensor:
        shape = spec.shape.as_list() if hasattr(spec.shape, "as_list") else spec.shape
        tensor = KerasTensor(tuple(shape), spec.dtype)
        if isinstance(spec, SparseTensorSpec):
            tensor.sparse = True
        elif isinstance(spec, RaggedTensorSpec):
            tensor.ragged = True
        return tensor

    def to_spec(tensor: Any) -> Any:
        if getattr(tensor, "sparse", False):
            return SparseTensorSpec(tuple(tensor.shape), tensor.dtype)
        if getattr(tensor, "ragged", False):
            return RaggedTensorSpec(tuple(tensor.shape), tensor.dtype)
        return _dtypes.TensorSpec(tuple(tensor.shape), tensor.dtype)

    outputs = compute_output_spec(layer, (nest.map_structure(to_keras, input_spec),), {})
    return nest.map_structure(to_spec, outputs)
