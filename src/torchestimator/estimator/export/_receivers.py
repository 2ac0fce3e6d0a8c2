"""Serving input receivers (`tf.estimator.export.ServingInputReceiver` and the builders).

A receiver says what a served model receives and how that becomes `model_fn`'s features.
TensorFlow built it from placeholders; here a placeholder is a `tf.TensorSpec` (what
`tf.compat.v1.placeholder` returns), and `tf.io.parse_example` on a string placeholder
returns `ParsedFeature`s. An export stores the receiver as data (`ReceiverSpec`), so the
loaded model needs no receiver function.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._dtypes import TensorSpec
from torchestimator.io._placeholders import ParsedFeature, parse_example_placeholders
from torchestimator.saved_model._receiver_spec import PARSING, RAW, ReceiverSpec

SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"


def _as_spec(value: Any, what: str, default_batch_size: int | None = None) -> TensorSpec:
    """A receiver value as a TensorSpec: a spec or placeholder as is; a tensor or array gives
    its dtype and shape[1:] with `default_batch_size` first, as TF's raw receiver builder."""
    if isinstance(value, TensorSpec):
        return value
    if isinstance(value, torch.Tensor):
        return TensorSpec((default_batch_size,) + tuple(value.shape[1:]), value.dtype)
    if isinstance(value, np.ndarray):
        dtype = _dtypes.string if value.dtype == object or value.dtype.kind in "SU" else torch.from_numpy(
            np.zeros(0, value.dtype)).dtype
        return TensorSpec((default_batch_size,) + tuple(value.shape[1:]), dtype)
    raise ValueError(
        f"{what} must be a tf.TensorSpec (or tf.compat.v1.placeholder, a tensor or a numpy array); "
        f"got {type(value).__name__}: {value!r:.100}"
    )


def _check_names(values: Mapping[str, Any], what: str) -> None:
    for name in values:
        if not isinstance(name, str):
            raise ValueError(f"{what} keys must be strings: {name!r}.")


class ServingInputReceiver(
    collections.namedtuple("ServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"])
):
    """What a `serving_input_receiver_fn` returns (TF's `ServingInputReceiver`).

    Args:
        features: a dict of feature name -> placeholder (`tf.TensorSpec`) or parsed feature
            (`tf.io.parse_example` of a placeholder); a single one becomes `{'feature': it}`.
        receiver_tensors: the inputs the served model takes: a dict of name -> placeholder;
            a single one becomes `{'input': it}`.
        receiver_tensors_alternatives: accepted as TF's; alternative signatures are not
            exported (a warning says so).
    """

    __slots__ = ()

    def __new__(cls, features: Any, receiver_tensors: Any, receiver_tensors_alternatives: Any = None):
        if features is None:
            raise ValueError("features must be defined.")
        if not isinstance(features, dict):
            features = {SINGLE_FEATURE_DEFAULT_NAME: features}
        _check_names(features, "feature")
        if receiver_tensors is None:
            raise ValueError("receiver_tensors must be defined.")
        if not isinstance(receiver_tensors, dict):
            receiver_tensors = {SINGLE_RECEIVER_DEFAULT_NAME: receiver_tensors}
        _check_names(receiver_tensors, "receiver_tensors")
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(
    collections.namedtuple("TensorServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"])
):
    """A receiver whose model_fn gets one tensor as its features, not a dict (TF's
    `TensorServingInputReceiver`)."""

    __slots__ = ()

    def __new__(cls, features: Any, receiver_tensors: Any, receiver_tensors_alternatives: Any = None):
        if features is None or isinstance(features, dict):
            raise ValueError(
                "features must be a single placeholder (tf.TensorSpec) for TensorServingInputReceiver; "
                f"got {type(features).__name__}. Use ServingInputReceiver for a dict of features."
            )
        if not isinstance(receiver_tensors, dict):
            receiver_tensors = {SINGLE_RECEIVER_DEFAULT_NAME: receiver_tensors}
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


def receiver_spec(receiver: Any) -> ReceiverSpec:
    """The data an export stores for `receiver` (a `ServingInputReceiver` or
    `TensorServingInputReceiver`). Raises ValueError naming the feature whose value the
    export cannot describe as data."""
    if not isinstance(receiver, (ServingInputReceiver, TensorServingInputReceiver)):
        raise ValueError(
            "serving_input_receiver_fn must return a ServingInputReceiver or "
            f"TensorServingInputReceiver; it returned {type(receiver).__name__}."
        )
    if receiver.receiver_tensors_alternatives:
        logging.getLogger("torchestimator").warning(
            "receiver_tensors_alternatives are not exported (alternatives %s): export them as "
            "separate models.", sorted(receiver.receiver_tensors_alternatives))
    single = isinstance(receiver, TensorServingInputReceiver)
    features = {SINGLE_FEATURE_DEFAULT_NAME: receiver.features} if single else receiver.features
    inputs = {k: _as_spec(v, f"receiver_tensors[{k!r}]") for k, v in receiver.receiver_tensors.items()}
    parsed = {k: v for k, v in features.items() if isinstance(v, ParsedFeature)}
    if parsed:
        sources = {id(v.source) for v in parsed.values()}
        if len(parsed) != len(features) or len(sources) != 1:
            raise ValueError(
                "An exported receiver either parses every feature from one string input of "
                "serialized tf.train.Examples, or takes every feature as its own input; this one "
                f"mixes them (parsed: {sorted(parsed)}, others: {sorted(set(features) - set(parsed))})."
            )
        source = next(iter(parsed.values())).source
        names = [k for k, v in receiver.receiver_tensors.items() if v is source]
        if len(receiver.receiver_tensors) != 1 or not names:
            raise ValueError(
                "The features are parsed from a placeholder that is not the receiver's only "
                f"receiver tensor (receiver tensors: {sorted(receiver.receiver_tensors)})."
            )
        return ReceiverSpec(PARSING, inputs, feature_spec={k: v.spec for k, v in parsed.items()},
                            single_feature=single)
    feature_sources = {}
    for name, value in features.items():
        matches = [k for k, v in receiver.receiver_tensors.items() if v is value]
        if not matches:
            raise ValueError(
                f"Feature {name!r} is not one of the receiver tensors. An export stores the "
                "receiver as data: each feature must be a receiver tensor itself (or parsed from "
                "serialized tf.train.Examples with tf.io.parse_example); computations on "
                "placeholders belong in model_fn. Use build_raw_serving_input_receiver_fn or "
                "build_parsing_serving_input_receiver_fn."
            )
        feature_sources[name] = matches[0]
    return ReceiverSpec(RAW, inputs, feature_sources=feature_sources, single_feature=single)


def build_parsing_serving_input_receiver_fn(feature_spec: Mapping[str, Any],
                                            default_batch_size: int | None = None) -> Callable[[], ServingInputReceiver]:
    """Builds a serving_input_receiver_fn expecting fed tf.Examples (TF's builder).

    The served model takes `examples`: a batch of serialized `tf.train.Example`s, parsed
    with `feature_spec` (feature name -> `tf.io.FixedLenFeature` / `VarLenFeature`; e.g.
    `tf.feature_column.make_parse_example_spec(columns)`).

    Returns:
        A function returning a `ServingInputReceiver`.
    """
    if not isinstance(feature_spec, Mapping) or not feature_spec:
        raise ValueError(
            f"feature_spec must be a non-empty dict of feature name -> tf.io.FixedLenFeature / "
            f"VarLenFeature; got {feature_spec!r:.100}"
        )
    spec = dict(feature_spec)

    def serving_input_receiver_fn() -> ServingInputReceiver:
        serialized = TensorSpec((default_batch_size,), _dtypes.string, "input_example_tensor")
        features = parse_example_placeholders(serialized, spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features: Mapping[str, Any],
                                        default_batch_size: int | None = None) -> Callable[[], ServingInputReceiver]:
    """Builds a serving_input_receiver_fn that takes each feature as a raw input (TF's builder).

    Args:
        features: feature name -> `tf.TensorSpec` (its shape includes the batch dimension,
            which is replaced by `default_batch_size`), or a tensor / array whose dtype and
            shape[1:] describe the input.

    Returns:
        A function returning a `ServingInputReceiver` whose receiver tensors are the features.
    """
    if not isinstance(features, Mapping) or not features:
        raise ValueError(f"features must be a non-empty dict of name -> tf.TensorSpec; got {features!r:.100}")
    specs = {}
    for name, value in features.items():
        spec = _as_spec(value, f"features[{name!r}]", default_batch_size)
        shape = spec.shape if spec.shape is not None else (None,)
        specs[name] = TensorSpec((default_batch_size,) + tuple(shape[1:]), spec.dtype, name)

    def serving_input_receiver_fn() -> ServingInputReceiver:
        placeholders = dict(specs)
        return ServingInputReceiver(placeholders, placeholders)

    return serving_input_receiver_fn


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> TensorSpec:
    """`tf.compat.v1.placeholder` for serving input receivers: returns the `tf.TensorSpec` the
    receiver describes its input with (there is no graph to feed)."""
    return TensorSpec(shape, dtype, name)
