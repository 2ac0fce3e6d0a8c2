"""What a serving signature receives and how it becomes the model's features, as data.

An export stores its serving input receiver as a `ReceiverSpec`:

* **parsing** — one string input (`examples`) holding a batch of serialized
  `tf.train.Example`s, parsed with a feature spec (`FixedLenFeature`, `VarLenFeature`, ...):
  what `build_parsing_serving_input_receiver_fn` makes;
* **raw** — one input per feature (a dtype and a shape with the batch first): what
  `build_raw_serving_input_receiver_fn` makes. A feature may be fed by a differently named
  receiver tensor (`feature_sources`).

With `single_feature` set (a `TensorServingInputReceiver`), the model gets the one feature
as a tensor rather than a dict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._dtypes import TensorSpec
from torchestimator.saved_model._features import example_for_row, numpy_dtype

PARSING = "parsing"
RAW = "raw"


def spec_to_json(spec: TensorSpec) -> dict[str, Any]:
    """A `TensorSpec` as JSON data: dtype name, shape (None for unknown dims), name."""
    return {"dtype": _dtypes.dtype_name(spec.dtype),
            "shape": None if spec.shape is None else list(spec.shape), "name": spec.name}


def spec_from_json(data: Mapping[str, Any]) -> TensorSpec:
    """The inverse of `spec_to_json`."""
    shape = data.get("shape")
    return TensorSpec(None if shape is None else tuple(shape), data["dtype"], data.get("name"))


def parse_spec_to_json(spec: Any) -> dict[str, Any]:
    """A parse spec entry (`FixedLenFeature`, `VarLenFeature`, `FixedLenSequenceFeature`) as data."""
    kind = type(spec).__name__
    out: dict[str, Any] = {"kind": kind, "dtype": _dtypes.dtype_name(spec.dtype)}
    if hasattr(spec, "shape"):
        out["shape"] = [int(d) for d in (spec.shape or ())]
    default = getattr(spec, "default_value", None)
    if default is not None:
        value = np.asarray(default)
        out["default_value"] = (
            [v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v for v in value.reshape(-1).tolist()]
            if value.dtype == object or value.dtype.kind in "SU" else value.reshape(-1).tolist()
        )
    if hasattr(spec, "allow_missing"):
        out["allow_missing"] = bool(spec.allow_missing)
    return out


def parse_spec_from_json(data: Mapping[str, Any]) -> Any:
    """The inverse of `parse_spec_to_json`: the `tf.io` parse spec object."""
    from torchestimator.io import (  # lazy: heavy (torchestimator.io, 496 ms)
        _parse_spec as parse_spec,
    )

    kind = data["kind"]
    dtype = _dtypes.as_dtype(data["dtype"])
    if kind == "VarLenFeature":
        return parse_spec.VarLenFeature(dtype)
    shape = tuple(data.get("shape", ()))
    default = data.get("default_value")
    if default is not None:
        if dtype is _dtypes.string:
            default = np.asarray([d.encode("utf-8", "surrogateescape") for d in default], dtype=object)
        else:
            default = np.asarray(default, dtype=numpy_dtype(dtype))
        default = default.reshape(shape) if shape and default.size == int(np.prod(shape)) else (
            default[0] if default.size == 1 and not shape else default)
    if kind == "FixedLenFeature":
        return parse_spec.FixedLenFeature(shape, dtype, default)
    if kind == "FixedLenSequenceFeature":
        cls = parse_spec.FixedLenSequenceFeature
        return cls(shape, dtype, bool(data.get("allow_missing", False)), default)
    raise ValueError(f"Unknown parse spec kind {kind!r} in the export's receiver.")


@dataclasses.dataclass
class ReceiverSpec:
    """A serving input receiver as data (see the module docstring).

    Attributes:
        kind: `PARSING` or `RAW`.
        inputs: the receiver tensors (the signatures' inputs) by name.
        feature_spec: for PARSING, feature name -> parse spec.
        feature_sources: for RAW, feature name -> the input that feeds it.
        single_feature: the model receives the only feature itself, not a dict.
    """

    kind: str
    inputs: dict[str, TensorSpec]
    feature_spec: dict[str, Any] | None = None
    feature_sources: dict[str, str] | None = None
    single_feature: bool = False

    @property
    def single_string_input(self) -> bool:
        """True when the receiver is exactly one string tensor (TF's condition for the
        classification and regression signatures)."""
        return len(self.inputs) == 1 and next(iter(self.inputs.values())).dtype is _dtypes.string

    def to_json(self) -> dict[str, Any]:
        """This receiver as JSON data."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "inputs": {k: spec_to_json(v) for k, v in self.inputs.items()},
            "single_feature": self.single_feature,
        }
        if self.feature_spec is not None:
            out["feature_spec"] = {k: parse_spec_to_json(v) for k, v in self.feature_spec.items()}
        if self.feature_sources is not None:
            out["feature_sources"] = dict(self.feature_sources)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReceiverSpec:
        """The inverse of `to_json`."""
        spec = data.get("feature_spec")
        return cls(
            kind=data["kind"],
            inputs={k: spec_from_json(v) for k, v in data["inputs"].items()},
            feature_spec=None if spec is None else {k: parse_spec_from_json(v) for k, v in spec.items()},
            feature_sources=data.get("feature_sources"),
            single_feature=bool(data.get("single_feature", False)),
        )

    # ------------------------------------------------------------------ serving
    def features_from_inputs(self, inputs: Mapping[str, Any], signature: str) -> dict[str, Any]:
        """The model's features for one call of signature `signature` with `inputs` (already
        checked to be this receiver's input names)."""
        if self.kind == PARSING:
            (name,) = self.inputs
            serialized = as_string_batch(inputs[name], name, signature)
            return parse_examples(serialized, self.feature_spec or {})
        converted = {k: convert_input(inputs[k], self.inputs[k], k, signature) for k in self.inputs}
        return {feature: converted[source] for feature, source in (self.feature_sources or {}).items()}

    def sample_features(self, batch_size: int = 3) -> dict[str, Any]:
        """A batch of `batch_size` made-up examples with this receiver's dtypes and shapes: what
        an export runs the model on before tracing it."""
        if self.kind == PARSING:
            return parse_examples(sample_examples(self.feature_spec or {}, batch_size), self.feature_spec or {})
        out = {}
        for feature, source in (self.feature_sources or {}).items():
            out[feature] = _sample_value(self.inputs[source], batch_size)
        return out


def parse_examples(serialized: np.ndarray, feature_spec: Mapping[str, Any]) -> dict[str, Any]:
    """`tf.io.parse_example(serialized, feature_spec)`."""
    from torchestimator.io import parse_example  # lazy: heavy (torchestimator.io, 946 ms)

    return dict(parse_example(serialized, dict(feature_spec)))


def sample_examples(feature_spec: Mapping[str, Any], batch_size: int) -> np.ndarray:
    """`batch_size` serialized `tf.train.Example`s with every feature of `feature_spec` present
    (its default value, or zeros / b'a' of the spec's shape; one value for a variable-length
    feature, two steps for a sequence feature)."""
    row: dict[str, Any] = {}
    for key, spec in feature_spec.items():
        kind = type(spec).__name__
        size = int(np.prod(tuple(getattr(spec, "shape", ()) or ()), dtype=np.int64))
        count = 1 if kind == "VarLenFeature" else 2 * size if kind == "FixedLenSequenceFeature" else size
        default = getattr(spec, "default_value", None)
        if default is not None:
            row[key] = np.asarray(default, dtype=numpy_dtype(spec.dtype)).reshape(-1).tolist()
        else:
            row[key] = [b"a" if spec.dtype is _dtypes.string else 0] * count
    serialized = example_for_row(row, feature_spec).SerializeToString()
    out = np.empty(batch_size, dtype=object)
    out[:] = [serialized] * batch_size
    return out


def _sample_value(spec: TensorSpec, batch_size: int) -> Any:
    shape = tuple(batch_size if i == 0 else (2 if d is None else d) for i, d in enumerate(spec.shape or (None,)))
    if spec.dtype is _dtypes.string:
        return np.full(shape, b"a", dtype=object)
    return torch.zeros(shape, dtype=spec.dtype)


def _bytes_array(value: Any, describe: Any) -> np.ndarray:
    """`value` as a numpy object array of bytes (str encoded as UTF-8), a copy: the caller's
    array is never changed. `describe(index, item)` gives the TypeError for a non-string."""
    array = np.array(value, dtype=object)
    flat = array.reshape(-1)
    for index, item in enumerate(flat):
        if isinstance(item, str):
            flat[index] = item.encode("utf-8")
        elif not isinstance(item, bytes):
            raise describe(index, item)
    return flat.reshape(array.shape)


def as_string_batch(value: Any, name: str, signature: str) -> np.ndarray:
    """`value` (a list or array of bytes/str) as a 1-D numpy object array of bytes; raises
    TypeError naming the input otherwise."""
    if isinstance(value, (bytes, str)):
        value = [value]
    if isinstance(value, torch.Tensor):
        raise TypeError(
            f"Input {name!r} of signature {signature!r} must be a batch of serialized "
            f"tf.train.Example strings (bytes); got a {value.dtype} tensor."
        )
    array = _bytes_array(value, lambda index, item: TypeError(
        f"Input {name!r} of signature {signature!r} must hold serialized tf.train.Example "
        f"bytes; item {index} is a {type(item).__name__}."))
    if array.ndim != 1:
        raise ValueError(
            f"Input {name!r} of signature {signature!r} must be a 1-D batch of serialized "
            f"tf.train.Example strings; got shape {array.shape}."
        )
    return array


def convert_input(value: Any, spec: TensorSpec, name: str, signature: str) -> Any:
    """`value` as the tensor (or numpy array of bytes, for strings) `spec` describes; raises
    TypeError/ValueError naming the input, the expected and the actual dtype or shape."""
    expected_shape = spec.shape
    if spec.dtype is _dtypes.string:
        result: Any = _bytes_array(value, lambda index, item: TypeError(
            f"Input {name!r} of signature {signature!r} expects strings (DT_STRING); "
            f"got a {type(item).__name__} ({item!r:.40})."))
        shape = result.shape
    else:
        try:
            if isinstance(value, torch.Tensor):
                if value.is_floating_point() != spec.dtype.is_floating_point and not spec.dtype.is_floating_point:
                    raise TypeError("float values for an integer input")
                result = value.to(spec.dtype)
            else:
                array = np.asarray(value)
                if array.dtype == object or array.dtype.kind in "SUV":
                    raise TypeError(f"{array.dtype.kind!r} values")
                if array.dtype.kind == "f" and not spec.dtype.is_floating_point:
                    if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
                        raise TypeError("float values for an integer input")
                result = torch.from_numpy(np.ascontiguousarray(array)).to(spec.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"Input {name!r} of signature {signature!r} expects {_dtypes.dtype_name(spec.dtype)} "
                f"values; got {_describe(value)} ({e})."
            ) from None
        shape = tuple(result.shape)
    if expected_shape is not None:
        if len(shape) != len(expected_shape) or any(
            e is not None and e != a for e, a in zip(expected_shape, shape)
        ):
            want = "[" + ", ".join("?" if d is None else str(d) for d in expected_shape) + "]"
            raise ValueError(
                f"Input {name!r} of signature {signature!r} expects shape {want} (batch first); "
                f"got shape {list(shape)}."
            )
    return result


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a {value.dtype} tensor"
    if isinstance(value, np.ndarray):
        return f"a numpy {value.dtype} array"
    return type(value).__name__
