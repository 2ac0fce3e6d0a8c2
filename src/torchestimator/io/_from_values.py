"""Building a `tf.train.Example` from plain values, with TensorFlow Serving's JSON rules.

TF Serving's REST `:classify` / `:regress` turn each JSON example object into a
`tf.train.Example`: a float becomes a float_list, an integer an int64_list, a
string (or `{"b64": ...}`) a bytes_list, and a list of one of those kinds a
multi-valued list. `null`, booleans, nested lists and lists that mix kinds
are errors naming the feature.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

import numpy as np

from torchestimator.io._example_proto import Example

_KIND_NAMES = {"float_list": "float", "int64_list": "integer", "bytes_list": "string"}


def _kind_of(name: str, value: Any) -> tuple[str, Any]:
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise ValueError(
            f"Feature: {name} has element with unexpected JSON type: "
            f"{'null' if value is None else 'bool'}. Give numbers, strings or "
            '{"b64": ...} objects (write booleans as 0/1).')
    if isinstance(value, (float, np.floating)):
        return "float_list", float(value)
    if isinstance(value, (int, np.integer)):
        return "int64_list", int(value)
    if isinstance(value, str):
        return "bytes_list", value.encode("utf-8")
    if isinstance(value, (bytes, np.bytes_)):
        return "bytes_list", bytes(value)
    if isinstance(value, Mapping):
        if set(value) != {"b64"} or not isinstance(value["b64"], str):
            raise ValueError(f"Feature: {name} has an object value that is not {{\"b64\": "
                             f"\"...\"}}: {dict(value)!r}")
        try:
            return "bytes_list", base64.b64decode(value["b64"], validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"Feature: {name} has a \"b64\" value that is not valid "
                             "base64") from None
    raise ValueError(f"Feature: {name} has element with unexpected type "
                     f"{type(value).__name__}; give numbers, strings or lists of them")


def _example_from_values(values: Mapping[str, Any]) -> Example:
    """Returns a `tf.train.Example` holding `values` (feature name -> value or list of values).

    TF Serving's JSON rules: float -> float_list, int -> int64_list, str / bytes /
    {"b64": ...} -> bytes_list; a list gives several values of one kind (an
    empty list gives an empty Feature). Raises ValueError naming the feature
    for null, booleans, nested lists and lists mixing kinds.
    """
    if not isinstance(values, Mapping):
        raise ValueError(f"An example must be an object of feature name to value; received "
                         f"{type(values).__name__}")
    example = Example()
    fmap = example.features.feature
    for name, value in values.items():
        if not isinstance(name, str):
            raise ValueError(f"Feature names must be strings; received {name!r}")
        feature = fmap[name]
        items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
        if not items:
            continue  # an empty Feature: the feature counts as missing
        kinds, converted = set(), []
        for item in items:
            if isinstance(item, (list, tuple, np.ndarray)):
                raise ValueError(f"Feature: {name} has a nested list; give a flat list of "
                                 "values per feature")
            kind, v = _kind_of(name, item)
            kinds.add(kind)
            converted.append(v)
        if len(kinds) > 1:
            found = ", ".join(sorted(_KIND_NAMES[k] for k in kinds))
            raise ValueError(f"Feature: {name} mixes value types ({found}) in one list; give one "
                             "type per feature (write 1.0, not 1, in a list of floats)")
        getattr(feature, kinds.pop()).value.extend(converted)
    return example
