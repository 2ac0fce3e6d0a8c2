"""`tf.io.parse_example` on a serving placeholder: while a serving input receiver is built,
`parse_example(tf.compat.v1.placeholder(tf.string, [None]), spec)` returns one
`ParsedFeature` per key, which the export stores as the receiver's parsing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from torchestimator import _dtypes
from torchestimator._dtypes import TensorSpec


class ParsedFeature(NamedTuple):
    """A feature parsed from a string placeholder of serialized `tf.train.Example`s:
    what `tf.io.parse_example(placeholder, spec)` returns for each key while a receiver is built."""

    source: TensorSpec
    key: str
    spec: Any


def parse_example_placeholders(serialized: TensorSpec, features: Mapping[str, Any]) -> dict[str, ParsedFeature]:
    """`tf.io.parse_example` on a placeholder: a `ParsedFeature` per key of `features`."""
    if serialized.dtype is not _dtypes.string:
        raise ValueError(
            f"parse_example needs a string placeholder of serialized tf.train.Examples; got "
            f"{serialized!r}."
        )
    return {key: ParsedFeature(serialized, key, spec) for key, spec in features.items()}
