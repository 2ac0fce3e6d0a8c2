"""Plain per-example feature values -> what parsing the same `tf.train.Example`s gives.

A client of an export whose receiver parses serialized Examples may send the feature values
themselves (`{"x": [1.5, 2.0], "kind": ["a", "b"]}`): each example's values are put in an
Example following the export's feature spec (a float feature takes ints too, an int64
feature takes whole floats, a string feature takes str, bytes or `{"b64": ...}`), and the
batch goes through the same parse as serialized input, so both give identical features.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes


def numpy_dtype(dtype: Any) -> Any:
    """The numpy dtype of a torchestimator dtype (object for strings)."""
    if dtype is _dtypes.string:
        return object
    return torch.empty((), dtype=dtype).numpy().dtype


def _values_of(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist()
    if isinstance(value, (list, tuple)):
        flat: list = []
        for item in value:
            flat.extend(_values_of(item) if isinstance(item, (list, tuple, np.ndarray)) else [item])
        return flat
    return [value]


def _as_bytes(item: Any, key: str, row: int) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode("utf-8")
    if isinstance(item, Mapping) and set(item) == {"b64"}:
        try:
            return base64.b64decode(item["b64"], validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise ValueError(f"Feature {key!r} of example {row}: \"b64\" value is not valid base64.") from None
    raise TypeError(f"Feature {key!r} of example {row} is a string feature; got {type(item).__name__} {item!r:.40}.")


def _number(item: Any, key: str, row: int, integer: bool) -> Any:
    if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, float, np.integer, np.floating)):
        kind = "int64" if integer else "float"
        raise TypeError(f"Feature {key!r} of example {row} is a {kind} feature; got "
                        f"{type(item).__name__} {item!r:.40}.")
    if integer:
        if float(item) != int(item):
            raise TypeError(f"Feature {key!r} of example {row} is an int64 feature; got {item!r}.")
        return int(item)
    return float(item)


def _fixed_numeric(columns: Mapping[str, list], feature_spec: Mapping[str, Any], size: int) -> dict[str, Any] | None:
    """The common case without building Examples: every feature of the spec present for every
    example, each a `FixedLenFeature` of numbers with the right count. None (take the
    Example path, which also gives the errors) for anything else."""
    if set(columns) != set(feature_spec) or size == 0:
        return None
    out: dict[str, Any] = {}
    for key, column in columns.items():
        spec = feature_spec[key]
        if type(spec).__name__ != "FixedLenFeature" or spec.dtype is _dtypes.string:
            return None
        try:
            array = np.asarray(column)
        except ValueError:  # ragged
            return None
        if array.dtype.kind not in ("f", "i", "u") or (array.dtype.kind == "f" and not spec.dtype.is_floating_point):
            return None
        shape = tuple(int(d) for d in spec.shape)
        if array.size != size * int(np.prod(shape, dtype=np.int64)):
            return None
        out[key] = torch.from_numpy(np.ascontiguousarray(array, dtype=numpy_dtype(spec.dtype)).reshape((size,) + shape))
    return out


def features_from_values(values: Mapping[str, Any], feature_spec: Mapping[str, Any], signature: str) -> dict[str, Any]:
    """Returns `tf.io.parse_example` of the Examples holding `values` (feature name ->
    per-example values, batch first) under `feature_spec`. Raises ValueError/TypeError
    naming the feature and the example for unknown features, ragged batches and values of
    the wrong kind."""
    from torchestimator.io import parse_example  # lazy: heavy (torchestimator.io, 733 ms)

    if not isinstance(values, Mapping):
        raise TypeError(f"Signature {signature!r}: features must be a dict of name -> values; got "
                        f"{type(values).__name__}.")
    unknown = sorted(set(values) - set(feature_spec))
    if unknown:
        raise ValueError(f"Signature {signature!r}: unknown feature(s) {unknown}; the export reads "
                         f"{sorted(feature_spec)}.")
    columns = {k: (list(v) if not isinstance(v, (str, bytes)) and hasattr(v, "__len__") else None)
               for k, v in values.items()}
    for key, column in columns.items():
        if column is None:
            raise ValueError(f"Signature {signature!r}: feature {key!r} must hold one value (or list) "
                             "per example, batch first.")
    sizes = {len(c) for c in columns.values() if c is not None}
    if len(sizes) > 1:
        raise ValueError(f"Signature {signature!r}: the features have different numbers of examples: "
                         + ", ".join(f"{k}: {len(c)}" for k, c in columns.items()) + ".")
    size = sizes.pop() if sizes else 0
    direct = _fixed_numeric(columns, feature_spec, size)
    if direct is not None:
        return direct
    serialized = np.empty(size, dtype=object)
    for row in range(size):
        example = example_for_row({key: column[row] for key, column in columns.items()}, feature_spec, row)
        serialized[row] = example.SerializeToString()
    return dict(parse_example(serialized, dict(feature_spec)))


def example_for_row(values: Mapping[str, Any], feature_spec: Mapping[str, Any], row: int = 0) -> Any:
    """A `tf.train.Example` holding one example's `values` (feature name -> value or list),
    each in the list kind its spec's dtype reads (see the module docstring); an empty or
    None value leaves the feature out. Errors name the feature and `row`."""
    from torchestimator.train import Example  # lazy: heavy (torchestimator.train, 842 ms)

    example = Example()
    feature_map = example.features.feature
    for key, value in values.items():
        items = _values_of(value)
        if not items:
            continue
        dtype = feature_spec[key].dtype
        if dtype is _dtypes.string:
            feature_map[key].bytes_list.value.extend(_as_bytes(i, key, row) for i in items)
        elif dtype.is_floating_point:
            feature_map[key].float_list.value.extend(_number(i, key, row, False) for i in items)
        else:
            feature_map[key].int64_list.value.extend(_number(i, key, row, True) for i in items)
    return example
