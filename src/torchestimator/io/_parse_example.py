"""`tf.io.parse_example` and `tf.io.parse_single_example`.

    features = tf.io.parse_example(serialized_batch, {
        "x": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
        "tags": tf.io.VarLenFeature(tf.string),
    })

`serialized` is a batch of serialized `tf.train.Example`s (a list of bytes, a
numpy object array). The result maps each key to: a torch tensor
[batch, *shape] (float32 or int64) for a `FixedLenFeature`, a numpy object
array of bytes for a string one; a `tf.SparseTensor` for a `VarLenFeature`;
a padded [batch, steps, *shape] tensor for a `FixedLenSequenceFeature`.
Errors are `tf.errors.InvalidArgumentError` (a ValueError) naming the key and
the example's index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec
from torchestimator._sparse_tensor import SparseTensor
from torchestimator.io import _parse_composite
from torchestimator.io._columns import assemble
from torchestimator.io._placeholders import parse_example_placeholders
from torchestimator.io._proto_parse import parse_with_protobuf
from torchestimator.io._specs import check_specs
from torchestimator.io._wire_batch import parse_same_shaped
from torchestimator.io._wire_walk import parse_walk

# Batches of up to this many Examples go to protobuf directly: one or two upb parses cost
# less than the numpy set-up of the vectorized readers.
_PROTOBUF_UP_TO = 2
# Below this batch size protobuf's per-example parse is faster than the level-by-level walk.
_WALK_FROM = 48


def _as_bytes(value: Any, index: int) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytearray, memoryview, np.bytes_)):
        return bytes(value)
    raise TypeError(
        f"serialized[{index}] must be bytes (a serialized tf.train.Example); received "
        f"{type(value).__name__}")


def _as_batch(serialized: Any) -> list[bytes]:
    if isinstance(serialized, (bytes, str)):
        raise ValueError(
            "parse_example takes a batch (a list or 1-D array) of serialized Examples; for one "
            "Example use tf.io.parse_single_example, or wrap it in a list")
    if isinstance(serialized, np.ndarray):
        if serialized.ndim != 1:
            raise ValueError(
                f"serialized must be a 1-D batch of serialized Examples; received an array of "
                f"shape {serialized.shape}")
        items = serialized.tolist()
    elif isinstance(serialized, torch.Tensor):
        raise TypeError("serialized must hold bytes (serialized Examples), not a torch tensor")
    else:
        try:
            items = list(serialized)
        except TypeError:
            raise TypeError(
                "serialized must be a list or 1-D array of serialized Examples (bytes); "
                f"received {type(serialized).__name__}") from None
    if set(map(type, items)) <= {bytes}:
        return items
    return [_as_bytes(v, i) for i, v in enumerate(items)]


def _names(example_names: Any, n: int) -> Sequence[Any] | None:
    if example_names is None:
        return None
    names = list(np.asarray(example_names, dtype=object).reshape(-1))
    if len(names) != n:
        raise ValueError(f"example_names has {len(names)} names for {n} serialized Examples; "
                         "give one name per Example, or None")
    return names


def parse_example(serialized: Any, features: Mapping[str, Any], example_names: Any = None,
                  name: str | None = None) -> dict[str, Any]:
    """Parses a batch of serialized `tf.train.Example` protos (TF's `tf.io.parse_example`).

    Returns a dict from each key of `features` to a torch tensor [batch, *shape]
    (`FixedLenFeature` of float32/int64), a numpy object array of bytes
    (string `FixedLenFeature`), a `tf.SparseTensor` with dense_shape
    [batch, max values] (`VarLenFeature`), or a tensor [batch, max steps, *shape]
    (`FixedLenSequenceFeature`, padded with its default_value), a `tf.RaggedTensor`
    (`RaggedFeature`) or a `tf.SparseTensor` of dense_shape [batch, *size] (`SparseFeature`).

    On a `tf.compat.v1.placeholder` (a `tf.TensorSpec` of strings, inside a
    serving_input_receiver_fn) it returns what an export stores as the
    receiver's parsing, for `ServingInputReceiver`.

    Raises `tf.errors.InvalidArgumentError` (a ValueError) naming the key and
    the example index when a required feature is missing, holds another list
    kind than its dtype, or has the wrong number of values, and when bytes
    are not an Example.
    """
    if _parse_composite.has_composite(features):  # RaggedFeature / SparseFeature
        return _parse_composite.parse_composite(parse_example, serialized, features, name,
                                                example_names)
    specs = check_specs(features)

    if isinstance(serialized, TensorSpec):  # a serving input receiver's placeholder
        return parse_example_placeholders(serialized, features)
    batch = _as_batch(serialized)
    names = _names(example_names, len(batch))
    columns = parse_same_shaped(batch, specs) if len(batch) > _PROTOBUF_UP_TO else None
    if columns is None and len(batch) >= _WALK_FROM:
        columns = parse_walk(batch, specs)
    if columns is None:
        columns = parse_with_protobuf(batch, specs, names)
    return {spec.key: assemble(spec, columns[spec.key], len(batch), names) for spec in specs}


def _unbatch(value: Any) -> Any:
    if isinstance(value, SparseTensor):
        return SparseTensor(value.indices[:, 1:], value.values, value.dense_shape[1:])
    return value[0]


def parse_single_example(serialized: Any, features: Mapping[str, Any], example_names: Any = None,
                         name: str | None = None) -> dict[str, Any]:
    """Parses one serialized `tf.train.Example` (TF's `tf.io.parse_single_example`).

    As `parse_example` without the batch dimension: a `FixedLenFeature` gives
    shape `shape`, a `VarLenFeature` a 1-D `SparseTensor`.
    """
    if isinstance(serialized, np.ndarray) and serialized.ndim == 0:
        serialized = serialized.item()
    if not isinstance(serialized, (bytes, bytearray, memoryview, str, np.bytes_)):
        raise TypeError(
            "parse_single_example takes one serialized Example (bytes); received "
            f"{type(serialized).__name__}. For a batch use tf.io.parse_example.")
    names = None if example_names is None else [example_names]
    parsed = parse_example([serialized], features, example_names=names, name=name)
    return {key: _unbatch(value) for key, value in parsed.items()}
