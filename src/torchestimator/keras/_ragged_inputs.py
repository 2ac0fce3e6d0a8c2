"""`tf.RaggedTensor` inputs to Keras layers (`tf.keras.Input(shape=(None,), ragged=True)`).

How a layer called on a RaggedTensor behaves, as in TF Keras 2.15:

* models, `InputLayer` and `Lambda` (and layers setting `_supports_ragged_inputs`) get
  the RaggedTensor itself (`Lambda(lambda x: x.to_tensor())`);
* `Embedding`, `Dense`, `Activation` and `Dropout` act on the values (the last axis stays
  dense): a RaggedTensor comes out, as TF's `embedding_lookup` / `map_flat_values` give;
* `GlobalAveragePooling1D` / `GlobalMaxPooling1D` reduce each row over its own length
  (TF's ragged `reduce_mean` / `reduce_max`): a dense [batch, channels] tensor;
* any other layer gets the dense `to_tensor()` (rows padded with zeros).

Symbolically, a ragged `KerasTensor` carries `ragged = True`; shape inference runs the
layer on a RaggedTensor of zeros and marks RaggedTensor outputs ragged.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ragged_tensor import RaggedTensor
from torchestimator.keras.engine.keras_tensor import KerasTensor

_ON_VALUES = ("Embedding", "Dense", "Activation", "Dropout", "ReLU", "LeakyReLU", "Softmax")
_POOLS = {"GlobalAveragePooling1D": "mean", "GlobalMaxPooling1D": "amax"}


def _kind(layer: Any) -> str:
    from torchestimator.keras.engine.input_layer import (  # lazy: subclass (keras.engine.input_layer.InputLayer subclasses Layer, whose module keras.engine.base_layer loads this one first)
        InputLayer,
    )
    from torchestimator.keras.layers.core.lambda_layer import (  # lazy: subclass (keras.layers.core.lambda_layer.Lambda subclasses Layer, whose module keras.engine.base_layer loads this one first)
        Lambda,
    )

    if getattr(layer, "_supports_ragged_inputs", False) or isinstance(layer, (InputLayer, Lambda)):
        return "pass"
    if hasattr(layer, "_run_plan") or hasattr(type(layer), "fit"):  # a model runs its layers
        return "pass"
    for cls in type(layer).__mro__:
        if cls.__name__ in _ON_VALUES:
            return "values"
        if cls.__name__ in _POOLS:
            return _POOLS[cls.__name__]
    return "dense"


def call_on_ragged(layer: Any, args: tuple, kwargs: dict) -> Any:
    """Calls `layer` on args whose first is a RaggedTensor, as TF Keras does (see above)."""
    rt: RaggedTensor = args[0]
    kind = _kind(layer)
    # host data goes to the weights' device (a model's too: its layers get the values there)
    weight = next(layer.parameters(), None) if layer.built else None
    if weight is not None and isinstance(rt.flat_values, torch.Tensor) \
            and rt.flat_values.device != weight.device:
        rt = rt.with_flat_values(rt.flat_values.to(weight.device))
        args = (rt,) + args[1:]
    if kind == "pass":
        if not layer.built:
            layer.built = True
        return layer._call_in_context(args, kwargs)
    if kind == "values":
        out = layer(rt.flat_values, *args[1:], **kwargs)
        return rt.with_flat_values(out)
    if kind in ("mean", "amax"):
        if getattr(layer, "data_format", "channels_last") != "channels_last" or rt.ragged_rank != 1:
            return layer(rt.to_tensor(), *args[1:], **kwargs)
        return _pool(layer, rt, kind)
    return layer(rt.to_tensor(), *args[1:], **kwargs)


def _pool(layer: Any, rt: RaggedTensor, how: str) -> torch.Tensor:
    values = rt.flat_values
    if not values.is_floating_point():
        values = values.to(layer._compute_dtype)
    rows = rt.value_rowids().to(torch.int64).to(values.device)
    n = rt._nrows()
    index = rows.reshape(-1, *([1] * (values.ndim - 1))).expand_as(values)
    out = torch.zeros((n, *values.shape[1:]), dtype=values.dtype, device=values.device)
    if how == "mean":
        out = out.scatter_add(0, index, values)
        lengths = rt.row_lengths().to(values.device).to(values.dtype)
        out = out / lengths.reshape(-1, *([1] * (values.ndim - 1)))
    else:
        out = out.scatter_reduce(0, index, values, reduce="amax", include_self=False)
    if getattr(layer, "keepdims", False):
        out = out.unsqueeze(1)
    return out


def materialize(tensor: torch.Tensor) -> RaggedTensor:
    """The zero-filled value shape inference runs a layer on, for a ragged KerasTensor: a
    RaggedTensor (on the host) whose rows have every length up to the filled size."""
    dense = torch.zeros(tensor.shape, dtype=tensor.dtype)
    if dense.ndim < 2:
        raise ValueError(f"A ragged Keras input needs rank >= 2; received shape "
                         f"{tuple(tensor.shape)}")
    n, width = dense.shape[0], dense.shape[1]
    lengths = torch.tensor([width - (i % max(width, 1)) for i in range(n)], dtype=torch.int64)
    return RaggedTensor.from_tensor(dense, lengths=lengths)


def spec_of(a: RaggedTensor, b: RaggedTensor) -> Any:
    """The ragged KerasTensor for a layer's RaggedTensor outputs of the two traces."""

    sa, sb = a._static_shape(), b._static_shape()
    shape = [x if x == y else None for x, y in zip(sa, sb)]
    spec = KerasTensor(tuple(shape), a.dtype)
    spec.ragged = True
    return spec
