"""`tf.SparseTensor` inputs to Keras layers (`tf.keras.Input(shape=(n,), sparse=True)`).

How a layer called on a SparseTensor behaves, as in TF Keras 2.15:

* models, `InputLayer` and `Lambda` (and layers setting `_supports_sparse_inputs`) get the
  SparseTensor itself (`Lambda(lambda s: tf.sparse.to_dense(s))`);
* `Dense` on a rank-2 SparseTensor multiplies sparsely (TF's `sparse_dense_matmul`; here
  `torch.sparse.mm`), then adds the bias and applies the activation: a dense tensor;
* any other layer gets the dense `tf.sparse.to_dense()` (absent entries 0).

Symbolically, a sparse `KerasTensor` carries `sparse = True`; shape inference runs the
layer on an empty SparseTensor of the filled shape and marks SparseTensor outputs sparse.
`fit` / `predict` / `evaluate` batch a SparseTensor `x` by rows (`take_rows`).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._sparse_tensor import SparseTensor, to_dense
from torchestimator.keras.engine.keras_tensor import KerasTensor


def _kind(layer: Any) -> str:
    from torchestimator.keras.engine.input_layer import (  # lazy: subclass (keras.engine.input_layer.InputLayer subclasses Layer, whose module keras.engine.base_layer loads this one first)
        InputLayer,
    )
    from torchestimator.keras.layers.core.lambda_layer import (  # lazy: subclass (keras.layers.core.lambda_layer.Lambda subclasses Layer, whose module keras.engine.base_layer loads this one first)
        Lambda,
    )

    if getattr(layer, "_supports_sparse_inputs", False) or isinstance(layer, (InputLayer, Lambda)):
        return "pass"
    if hasattr(layer, "_run_plan") or hasattr(type(layer), "fit"):  # a model runs its layers
        return "pass"
    if any(cls.__name__ == "Dense" for cls in type(layer).__mro__) \
            and type(layer).call is _dense_call():
        return "matmul"
    return "dense"


def _dense_call() -> Any:
    from torchestimator.keras.layers.core.dense import (  # lazy: subclass (keras.layers.core.dense.Dense subclasses Layer, whose module keras.engine.base_layer loads this one first)
        Dense,
    )

    return Dense.call


def _densify(sp: SparseTensor, device: Any = None) -> torch.Tensor:
    dense = to_dense(sp)
    if not isinstance(dense, torch.Tensor):
        raise TypeError("A SparseTensor of strings cannot be a Keras layer input; map the "
                        "strings to ids first (tf.keras.layers.StringLookup)")
    return dense if device is None else dense.to(device)


def call_on_sparse(layer: Any, args: tuple, kwargs: dict) -> Any:
    """Calls `layer` on args whose first is a SparseTensor, as TF Keras does (see above)."""
    sp: SparseTensor = args[0]
    kind = _kind(layer)
    if kind == "pass":
        if not layer.built:
            layer.built = True
        return layer._call_in_context(args, kwargs)
    weight = next(layer.parameters(), None) if layer.built else None
    device = None if weight is None or weight.device.type == "meta" else weight.device
    if kind == "matmul" and len(sp.dense_shape) == 2 and not args[1:] and not kwargs:
        layer._maybe_build(torch.empty(sp.shape, device="meta"))
        kernel = layer.kernel
        if kernel.device.type != "meta":  # (shape inference on meta weights densifies)
            return _sparse_dense(layer, sp, kernel)
    return layer(_densify(sp, device), *args[1:], **kwargs)


def _sparse_dense(layer: Any, sp: SparseTensor, kernel: torch.Tensor) -> torch.Tensor:
    """`activation(sparse @ kernel + bias)` with `torch.sparse.mm` (Dense on a SparseTensor)."""
    bias = layer.bias
    if layer._compute_dtype != layer._variable_dtype:  # a mixed-precision policy
        kernel = kernel.to(layer._compute_dtype)
        bias = None if bias is None else bias.to(layer._compute_dtype)
    values = sp.values.to(device=kernel.device, dtype=kernel.dtype)
    coo = torch.sparse_coo_tensor(sp.indices.t().to(kernel.device), values, sp.shape,
                                  device=kernel.device, check_invariants=False)
    out = torch.sparse.mm(coo, kernel)
    if bias is not None:
        out = out + bias
    act = layer._act
    return out if act is None else act(out)


def materialize(tensor: torch.Tensor) -> SparseTensor:
    """The value shape inference runs a layer on, for a sparse KerasTensor: an empty
    SparseTensor (on the host) of the filled shape."""
    shape = tuple(tensor.shape)
    return SparseTensor._from_parts(torch.zeros((0, len(shape)), dtype=torch.int64),
                                    torch.zeros(0, dtype=tensor.dtype),
                                    torch.tensor(shape, dtype=torch.int64))


def spec_of(a: SparseTensor, b: SparseTensor) -> Any:
    """The sparse KerasTensor for a layer's SparseTensor outputs of the two traces."""

    shape = [x if x == y else None for x, y in zip(a.shape, b.shape)]
    spec = KerasTensor(tuple(shape), a.dtype)
    spec.sparse = True
    return spec


def num_rows(sp: SparseTensor) -> int:
    """The number of rows (first dense dimension) of a SparseTensor of model data."""
    if not sp.shape:
        raise ValueError("A SparseTensor of model data needs rank >= 1; received rank 0")
    return sp.shape[0]


def take_rows(sp: SparseTensor, index: Any) -> SparseTensor:
    """The rows `index` (a slice or an int tensor of row numbers) of a SparseTensor, in that
    order: a SparseTensor of dense shape [len(rows), *rest] (a batch of model data)."""
    n = num_rows(sp)
    rows = torch.arange(n)[index] if isinstance(index, slice) else \
        torch.as_tensor(index, dtype=torch.int64).reshape(-1)
    position = torch.full((n,), -1, dtype=torch.int64)
    position[rows] = torch.arange(len(rows))
    new_row = position[sp.indices[:, 0]] if sp.indices.numel() else \
        torch.zeros(0, dtype=torch.int64)
    keep = (new_row >= 0).nonzero().reshape(-1)
    indices = torch.cat([new_row[keep].unsqueeze(1), sp.indices[keep, 1:]], 1)
    order = torch.argsort(indices[:, 0], stable=True)
    keep, indices = keep[order], indices[order]
    values = sp.values[keep.numpy()] if not isinstance(sp.values, torch.Tensor) else \
        sp.values[keep]
    shape = sp.dense_shape.clone()
    shape[0] = len(rows)
    return SparseTensor._from_parts(indices, values, shape)
