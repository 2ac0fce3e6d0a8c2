"""JSON examples to serialized `tf.train.Example`s, as TF Serving builds them.

Used for `:classify` / `:regress` on an export whose feature spec the server
does not know (a signature that takes serialized Examples some other way);
exports with a parsing receiver skip the bytes (see `_features`).

TF Serving's mapping (`json_tensor.cc`, MakeExampleFromJsonObject): a JSON
string or `{"b64": ...}` goes to a `bytes_list`, a whole number or a bool to an
`int64_list`, a decimal number to a `float_list`; a list holds one kind. The
`context` features are added to every example, as TF Serving merges an
ExampleListWithContext.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from torchestimator.serving._errors import RequestError
from torchestimator.serving._json_tensor import decode_b64, is_b64_object, json_type

_KIND_NAMES = {"bytes_list": "bytes", "int64_list": "int64", "float_list": "float"}


def _kind(value: Any) -> str:
    if isinstance(value, str) or is_b64_object(value):
        return "bytes_list"
    if isinstance(value, bool) or isinstance(value, int):
        return "int64_list"
    if isinstance(value, float):
        return "float_list"
    return ""


def _fill(feature: Any, name: str, content: Any, where: str) -> None:
    items = content if isinstance(content, list) else [content]
    kind = ""
    for item in items:
        item_kind = _kind(item)
        if not item_kind:
            raise RequestError(f"{where}: Feature: {name} has element with unexpected JSON type: "
                               f"{json_type(item)}")
        if kind and item_kind != kind:
            raise RequestError(f"{where}: Unexpected element type in feature: {name} expecting "
                               f"type: {_KIND_NAMES[kind]} (one feature's list holds one type)")
        kind = item_kind
    if not kind:
        return
    values = getattr(feature, kind).value
    if kind == "bytes_list":
        values.extend(decode_b64(v, where) if isinstance(v, dict) else v.encode("utf-8")
                      for v in items)
    elif kind == "int64_list":
        try:
            values.extend(int(v) for v in items)
        except ValueError:
            raise RequestError(f"{where}: Feature: {name} has a value outside the int64 "
                               "range") from None
    else:
        values.extend(items)


def examples_from_json(examples: list, context: Mapping[str, Any] | None) -> np.ndarray:
    """A 1-D object array of serialized tf.train.Examples from JSON example objects."""
    from torchestimator.train import Example  # lazy: heavy (torchestimator.train, 126 ms)

    context = context or {}
    if not isinstance(context, dict):
        raise RequestError(f"'context' must be a JSON object of features; got {json_type(context)}")
    shared = Example()
    for name, content in context.items():
        _fill(shared.features.feature[name], name, content, "context")
    out = np.empty(len(examples), dtype=object)
    for index, example in enumerate(examples):
        where = f"examples[{index}]"
        if not isinstance(example, dict) or is_b64_object(example):
            raise RequestError(f"{where}: Example must be JSON object but got JSON "
                               f"{json_type(example)}")
        message = Example()
        message.CopyFrom(shared)
        for name, content in example.items():
            if name in context:
                raise RequestError(f"{where}: feature {name!r} is also in 'context'; a feature "
                                   "in 'context' must not appear in the examples")
            _fill(message.features.feature[name], name, content, where)
        out[index] = message.SerializeToString()
    return out
