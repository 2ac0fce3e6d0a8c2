"""`TFOpLambda`: a graph node for a tensor operation written on symbolic tensors
(`x + y`, `x * 2`, `x[:, 0]`, `x @ w`), so that functional models can use them.

As in Keras 2.15 the layer is named after the TF API symbol of the operation
(`tf.__operators__.add`, `tf.math.multiply`, `tf.__operators__.getitem`, ...; repeats
get `_1`, `_2` suffixes) and slicing makes a `SlicingOpLambda`. `OpLayer` (the name
used before) stays an alias, so files saved with it still load."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import torch

from torchestimator._ops import symbolic_dispatch
from torchestimator.keras._registry import register_builtin
from torchestimator.keras.backend import _state
from torchestimator.keras.engine._tf_op_record import decode_argument
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor, is_symbolic

_OPS = {
    "add": torch.add,
    "subtract": torch.sub,
    "multiply": torch.mul,
    "divide": torch.true_divide,
    "power": torch.pow,
    "matmul": torch.matmul,
    "negative": torch.neg,
    "abs": torch.abs,
    "less": torch.lt,
    "less_equal": torch.le,
    "greater": torch.gt,
    "greater_equal": torch.ge,
    "getitem": lambda x, key: x[key],
}


#: op -> the TF API symbol (without `tf.`) Keras 2.15 names the layer after.
_FUNCTIONS = {
    "add": "__operators__.add",
    "subtract": "math.subtract",
    "multiply": "math.multiply",
    "divide": "math.truediv",
    "power": "math.pow",
    "matmul": "linalg.matmul",
    "negative": "math.negative",
    "abs": "math.abs",
    "less": "math.less",
    "less_equal": "math.less_equal",
    "greater": "math.greater",
    "greater_equal": "math.greater_equal",
    "getitem": "__operators__.getitem",
}
_OPS_BY_FUNCTION = {function: op for op, function in _FUNCTIONS.items()}
_OPS_BY_FUNCTION.update({"math.add": "add", "__operators__.subtract": "subtract",
                         "math.divide": "divide", "math.truediv": "divide",
                         "math.pow": "power", "matmul": "matmul", "math.abs": "abs"})


def _unique_name(function: str) -> str:
    return _state.unique_object_name(f"tf.{function}")


def _encode_key(key: Any) -> Any:
    if isinstance(key, slice):
        return {"__slice__": [key.start, key.stop, key.step]}
    if key is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(key, tuple):
        return {"__tuple__": [_encode_key(k) for k in key]}
    return key


def _decode_key(value: Any) -> Any:
    if isinstance(value, dict):
        if "__slice__" in value:
            return slice(*value["__slice__"])
        if "__ellipsis__" in value:
            return Ellipsis
        if "__tuple__" in value:
            return tuple(_decode_key(v) for v in value["__tuple__"])
    if isinstance(value, list):
        return tuple(_decode_key(v) for v in value)
    return value


class TFOpLambda(Layer):
    """Wraps a TF operation (`tf.__operators__.add`, `tf.math.multiply`, ...) applied to
    symbolic tensors in a functional model, as Keras' `TFOpLambda`.

    Args:
        op: the operation (`add`, `multiply`, `getitem`, ...); may be left out when
            `function` names it.
        reverse: swap the operands (for `2 - x`).
        constant: the non-symbolic operand; kept in the config.
        function: the TF API symbol without `tf.` (`math.multiply`), as Keras' config
            names it; by default the one of `op`. The layer's default name is
            `tf.` + `function`, made unique.
    """

    def __init__(
        self,
        op: str | None = None,
        reverse: bool = False,
        constant: Any = None,
        function: str | None = None,
        arguments: dict | None = None,
        **kwargs: Any,
    ):
        if op is None and function is not None and not (arguments or {}).get("symbolic"):
            op = _OPS_BY_FUNCTION.get(function)
        # Any other TF function (`nn.relu`): called as tf.<function>(inputs, *args, **kwargs)
        # with the constant `arguments` ({"args": [...], "kwargs": {...}}) kept in the config.
        self.arguments = None if op is not None else {
            "args": list((arguments or {}).get("args", [])),
            "kwargs": dict((arguments or {}).get("kwargs", {})),
        }
        if op is None and (arguments or {}).get("symbolic"):
            # recorded by `_tf_op_record`: the inputs go where `{"__symbolic__": i}` stands
            self.arguments["symbolic"] = int(arguments["symbolic"])
        if op is None and function is not None:
            _resolve_function(function)
        elif op not in _OPS:
            raise ValueError(
                f"{type(self).__name__}: unknown op {op!r} (function={function!r}); known ops: "
                f"{sorted(_OPS)}, known functions: {sorted(_OPS_BY_FUNCTION)}."
            )
        self.function = function or _FUNCTIONS[op]
        if kwargs.get("name") is None:
            kwargs["name"] = _unique_name(self.function)
        super().__init__(**kwargs)
        self.op = op
        self.reverse = reverse
        self.constant = constant

    def call(self, inputs: Any, *others: Any) -> Any:
        if self.op is None:
            fn = _resolve_function(self.function)
            if self.arguments.get("symbolic"):
                symbols = [inputs] if self.arguments["symbolic"] == 1 else list(inputs)
                return fn(*decode_argument(self.arguments["args"], symbols),
                          **decode_argument(self.arguments["kwargs"], symbols))
            return fn(inputs, *others, *self.arguments["args"], **self.arguments["kwargs"])
        fn = _OPS[self.op]
        if self.op == "getitem":
            key = others[0] if others else _decode_key(self.constant)
            return fn(inputs, key)
        operands = [inputs, *others]
        if len(operands) == 1 and self.constant is not None:
            constant = self.constant
            if isinstance(constant, torch.Tensor) and constant.device != inputs.device:
                constant = constant.to(inputs.device)
            operands.append(constant)
        if self.reverse:
            operands = operands[::-1]
        return fn(*operands)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 2 and isinstance(args[1], KerasTensor):
            # Both operands symbolic: the second is a graph input, never a constant (shape
            # inference calls again with placeholder tensors, which must not be kept).
            self._symbolic_operand = True
        if self.op is None or getattr(self, "_symbolic_operand", False):
            pass
        elif self.op == "getitem" and len(args) == 2 and not isinstance(args[1], KerasTensor):
            self.constant = _encode_key(args[1])
            args = args[:1]
        elif len(args) == 2 and not isinstance(args[1], KerasTensor):
            value = args[1]
            if isinstance(value, (torch.Tensor, np.ndarray)):  # kept as an owned tensor copy
                value = torch.as_tensor(value).detach().clone()
            self.constant = value
            args = args[:1]
        return super().__call__(*args, **kwargs)

    def get_config(self) -> dict:
        """Returns the op name, operand order and constant operand."""
        config = super().get_config()
        constant = self.constant if self.op == "getitem" else _encode_constant(self.constant)
        if self.op is None:
            config.update({"function": self.function, "arguments": self.arguments})
            return config
        config.update({"function": self.function, "op": self.op, "reverse": self.reverse,
                       "constant": constant})
        return config

    @classmethod
    def from_config(cls, config: dict) -> TFOpLambda:
        """Creates the layer from `get_config()`'s output (tensor constants included)."""
        config = dict(config)
        op = config.get("op") or _OPS_BY_FUNCTION.get(config.get("function"))
        if op != "getitem":
            config["constant"] = _decode_constant(config.get("constant"))
        if op == "getitem" and cls is TFOpLambda:
            cls = SlicingOpLambda
        return cls(**config)


def _resolve_function(function: str) -> Any:
    """`tf.<function>` (`"nn.relu"` -> `tf.nn.relu`); a ValueError names it when it is not one
    of TF's public tensor ops.

    The name comes from a model's config, which a file supplies: only the ops that take
    symbolic Keras tensors (`_ops.symbolic_dispatch`: the functions of `tf`, `tf.math`,
    `tf.nn`, `tf.linalg`, `tf.image`, `tf.strings`, `tf.signal`, `tf.bitwise`) resolve, so a
    crafted name cannot reach a module's imports (`datasets.iris.os.system`), file functions
    (`io.gfile.rmtree`) or anything private, whatever arguments the config gives it."""

    target: Any = importlib.import_module("torchestimator")
    for part in function.split("."):
        if not part or part.startswith("_"):
            target = None
            break
        target = getattr(target, part, None)
        if target is None:
            break
    if target is None or symbolic_dispatch.wrapper_of(target) is not target:
        raise ValueError(
            f"TFOpLambda: function={function!r} is not a TF op (tf.{function} is not one of "
            "the public tensor ops of tf, tf.math, tf.nn, tf.linalg, tf.image, tf.strings, "
            "tf.signal or tf.bitwise); pass the API name without 'tf.', such as 'nn.relu' or "
            "'math.multiply'."
        )
    return target


def tf_op_call(function: str, inputs: Any, *args: Any, **kwargs: Any) -> Any:
    """Records `tf.<function>(inputs, *args, **kwargs)` on symbolic `inputs` as a `TFOpLambda`
    layer named `tf.<function>` (made unique); returns its symbolic output.

    `args` and `kwargs` are the constant (JSON-serializable) operands; they go into the
    layer's config. This is what a TF function calls when given a KerasTensor.
    """

    if is_symbolic(list(args)) or is_symbolic(kwargs):
        raise TypeError(
            f"tf.{function}: only the first argument may be a symbolic Keras tensor here; got "
            f"symbolic tensors among the other arguments. Combine them with a layer (Add, "
            f"Concatenate, Lambda) or pass the first argument as a list."
        )
    layer = TFOpLambda(function=function, arguments={"args": list(args), "kwargs": dict(kwargs)})
    return layer(inputs)


class SlicingOpLambda(TFOpLambda):
    """The `TFOpLambda` of slicing (`x[:, 1]`, `tf.__operators__.getitem`), as Keras'
    `SlicingOpLambda`."""

    def __init__(self, op: str | None = "getitem", **kwargs: Any):
        super().__init__(op=op, **kwargs)


#: The class name used before Keras 2.15's `TFOpLambda` was matched; saved files may name it.
OpLayer = TFOpLambda
register_builtin(TFOpLambda, "OpLayer")


def _encode_constant(value: Any) -> Any:
    if isinstance(value, (torch.Tensor, np.ndarray)):
        array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else value
        return {"__tensor__": array.tolist(), "dtype": str(array.dtype)}
    return value


def _decode_constant(value: Any) -> Any:
    if isinstance(value, dict) and "__tensor__" in value:
        return torch.as_tensor(np.asarray(value["__tensor__"], dtype=value["dtype"]))
    return value
