"""`compile(jit_compile=True)`: the model's forward through `torch.compile`, compiled on the
first call and held outside the model."""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import torch

#: Each model's `torch.compile`d forward (`jit_compile=True`), held outside the model: as an
#: attribute the compiled wrapper (an `nn.Module` holding the model) would become the model's
#: own child, and `train()`, `eval()`, `state_dict()` would recurse through it forever.
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _call_model(model: Any, x: Any, training: bool) -> Any:
    """`model(x, training=training)`: the function `jit_compile` compiles (it holds no model)."""
    return model(x, training=training)


def compiled_forward(model: Any, x: Any, training: bool) -> Any:
    """`model(x, training=training)` through `torch.compile`, compiled on the first call;
    when torch.compile fails (e.g. no C++ compiler), warns once and runs eagerly from then on."""
    compiled = _COMPILED.get(model)
    if compiled is None:
        compiled = _COMPILED[model] = torch.compile(_call_model)
    try:
        return compiled(model, x, training)
    except Exception as error:
        from torch._dynamo.exc import (  # lazy: heavy (torch._dynamo.exc, 930 ms)
            TorchDynamoException,
        )

        if not isinstance(error, TorchDynamoException):
            raise
        model._jit_compile = False
        warnings.warn(
            f"compile(jit_compile=True): torch.compile failed ({type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''}); the model runs eagerly.",
            RuntimeWarning, stacklevel=3,
        )
        return _call_model(model, x, training)


def forget_compiled(model: Any) -> None:
    """Drops `model`'s compiled forward (a new `compile()` compiles again)."""
    _COMPILED.pop(model, None)
