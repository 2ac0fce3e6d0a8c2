"""Parsing serialized Examples with the protobuf runtime (upb), one message at a time.

The general path of `parse_example`: it reads anything the protobuf wire
format allows (any field order, unpacked lists, repeated or merged messages,
unknown fields) exactly as TensorFlow does, at the cost of a few Python
steps per example and feature. `_wire_batch` handles the common shapes of
batches faster and hands the rest here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from torchestimator.errors import InvalidArgumentError
from torchestimator.io._columns import RawColumn, example_label
from torchestimator.io._example_proto import Example
from torchestimator.io._specs import TF_TYPE_OF_LIST, ParseSpec


def decode_error(index: int, names: Sequence[Any] | None, serialized: bytes, why: str
                 ) -> InvalidArgumentError:
    """The error for an example whose bytes are not a `tf.train.Example`."""
    head = serialized[:32]
    return InvalidArgumentError(
        f"Could not parse example input, {example_label(index, names)}: {len(serialized)} "
        f"bytes (starting {head!r}) are not a serialized tf.train.Example ({why}). Pass the "
        "output of Example.SerializeToString(); a numpy 'S' array drops trailing zero bytes, "
        "so give bytes in a list or an object array.")


def kind_error(spec: ParseSpec, actual: str, index: int, names: Sequence[Any] | None
               ) -> InvalidArgumentError:
    """The error for a feature stored in another list kind than its spec's dtype."""
    return InvalidArgumentError(
        f"Key: {spec.key}, {example_label(index, names)}. Data types don't match. Expected "
        f"type: {spec.tf_type} ({spec.list_kind}), Actual type: {TF_TYPE_OF_LIST[actual]} "
        f"({actual}). Feature {spec.key!r} of example {index} is a {actual}; declare it with "
        f"dtype={ {'float_list': 'tf.float32', 'int64_list': 'tf.int64'}.get(actual, 'tf.string')} "
        "or fix the data.")


def parse_with_protobuf(batch: Sequence[bytes], specs: Sequence[ParseSpec],
                        names: Sequence[Any] | None) -> dict[str, RawColumn]:
    """Reads every example with upb; returns one `RawColumn` per spec key."""
    n = len(batch)
    state = [(s, s.list_kind, [], np.zeros(n, np.int64), np.zeros(n, bool)) for s in specs]
    example = Example()
    for i, serialized in enumerate(batch):
        try:
            example.ParseFromString(serialized)
        except DecodeError as e:
            raise decode_error(i, names, serialized, str(e) or "malformed protobuf") from None
        fmap = example.features.feature
        for spec, want, values, counts, missing in state:
            if spec.key not in fmap:
                missing[i] = True
                continue
            feature = fmap[spec.key]
            kind = feature.WhichOneof("kind")
            if kind is None:
                missing[i] = True
            elif kind != want:
                raise kind_error(spec, kind, i, names)
            else:
                got = getattr(feature, kind).value
                values.extend(got)
                counts[i] = len(got)
    out = {}
    for spec, _, values, counts, missing in state:
        if spec.dtype == "string":
            arr = np.empty(len(values), dtype=object)
            arr[:] = values
        else:
            arr = np.array(values, dtype=spec.np_dtype)
        lacking = missing.any()
        same = n > 0 and not lacking and counts.min() == counts.max()
        out[spec.key] = RawColumn(arr, counts, missing if lacking else None,
                                  int(counts[0]) if same else None)
    return out
