"""Records a TF op applied to symbolic Keras tensors (`tf.nn.relu(x)`, `tf.concat([a, b], 1)`)
as a `TFOpLambda` layer, as Keras 2 does: the symbolic tensors become the layer's inputs, the
other arguments its config (`arguments`), with `{"__symbolic__": i}` where input `i` goes.

`_ops.symbolic_dispatch` calls `record_tf_op` when a public op receives a symbolic tensor
(Keras registers it on import, `keras_tensor.py`).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops import symbolic_dispatch
from torchestimator.keras.engine import keras_tensor  # names read at call time (a circle)


def _symbolic_slots(value: Any, symbols: list, kinds: tuple) -> Any:
    """`value` with each symbolic tensor (top level or in a list/tuple) replaced by a slot."""
    if isinstance(value, kinds):
        symbols.append(value)
        return {"__symbolic__": len(symbols) - 1}
    if type(value) in (list, tuple) and any(isinstance(v, kinds) for v in value):
        return [_symbolic_slots(v, symbols, kinds) for v in value]
    return value


def encode_argument(value: Any, where: str) -> Any:
    """A constant argument as JSON (tensors and arrays as lists with their dtype, dtypes by
    name); raises TypeError naming `where` for anything else a config cannot hold."""
    if isinstance(value, dict) and "__symbolic__" in value:
        return value
    if isinstance(value, (torch.Tensor, np.ndarray)):
        array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else value
        return {"__tensor__": array.tolist(), "dtype": str(array.dtype)}
    if isinstance(value, torch.dtype) or type(value).__name__.endswith("DType") or (
            isinstance(value, type) and issubclass(value, np.generic)):
        return {"__dtype__": _dtypes.dtype_name(_dtypes.as_dtype(value))}
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [encode_argument(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): encode_argument(v, where) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(
        f"{where} is a {type(value).__name__}, which a functional model's config cannot hold "
        "(constants must be numbers, strings, lists, dtypes, arrays or tensors); wrap the "
        "computation in a Lambda layer or a custom Layer instead."
    )


def decode_argument(value: Any, symbols: list) -> Any:
    """The inverse of `encode_argument`, with slot `i` replaced by `symbols[i]`."""
    if isinstance(value, dict):
        if "__symbolic__" in value:
            return symbols[value["__symbolic__"]]
        if "__tensor__" in value:
            return torch.as_tensor(np.asarray(value["__tensor__"], dtype=value["dtype"]))
        if "__dtype__" in value:
            return _dtypes.as_dtype(value["__dtype__"])
        return {k: decode_argument(v, symbols) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_argument(v, symbols) for v in value]
    return value


def canonical_api_name(api_name: str, fn: Any) -> str:
    """The name Keras 2 gives the op's layer, after TF's canonical one: `tf.reduce_sum` and
    `tf.nn.l2_normalize` are `math.*`, `tf.matmul` is `linalg.matmul` (the namespaces are
    imported first so the name does not depend on what the program imported)."""
    for namespace in ("math", "linalg", "nn"):
        importlib.import_module(f"torchestimator.{namespace}")
    wrapper = symbolic_dispatch.wrapper_of(fn)
    return getattr(wrapper, "__tf_api_name__", api_name)


def record_tf_op(api_name: str, fn: Any, args: tuple, kwargs: dict) -> Any:
    """Records `tf.<api_name>(*args, **kwargs)` on symbolic tensors as a `TFOpLambda` layer
    named `tf.<api_name>` (made unique); returns its symbolic output(s)."""
    from torchestimator.keras.engine.op_layer import (  # lazy: heavy (torchestimator.keras.engine.op_layer, 327 ms)
        TFOpLambda,
    )

    api_name = canonical_api_name(api_name, fn)
    kinds = (keras_tensor.KerasTensor,)
    symbols: list = []
    slotted_args = [_symbolic_slots(a, symbols, kinds) for a in args]
    slotted_kwargs = {k: _symbolic_slots(v, symbols, kinds) for k, v in kwargs.items()}
    arguments = {
        "args": [encode_argument(a, f"tf.{api_name}: argument {i}")
                 for i, a in enumerate(slotted_args)],
        "kwargs": {k: encode_argument(v, f"tf.{api_name}: argument {k!r}")
                   for k, v in slotted_kwargs.items()},
        "symbolic": len(symbols),
    }
    layer = TFOpLambda(function=api_name, arguments=arguments)
    return layer(symbols[0] if len(symbols) == 1 else symbols)
