"""`tf.io.parse_sequence_example` and `parse_single_sequence_example`.

A `tf.train.SequenceExample` holds `context` features (parsed as an
Example's, with `FixedLenFeature` / `VarLenFeature`) and `feature_lists`:
per key, one Feature per time step. A `FixedLenSequenceFeature(shape)` reads
each step's `shape` values into [steps, *shape] ([batch, max steps, *shape]
padded with its default_value for a batch, with the lengths returned too);
a `VarLenFeature` reads them into a `SparseTensor` of [steps, max values]
([batch, max steps, max values]). Parsed with protobuf (upb), one message at
a time: sequence data is read for training, not on the serving path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from google.protobuf.message import DecodeError

from torchestimator._sparse_tensor import SparseTensor
from torchestimator.errors import InvalidArgumentError
from torchestimator.io._columns import example_label
from torchestimator.io._example_proto import SequenceExample
from torchestimator.io._parse_example import _as_batch, _names, _unbatch, parse_example
from torchestimator.io._parse_spec import FixedLenSequenceFeature, VarLenFeature
from torchestimator.io._proto_parse import kind_error
from torchestimator.io._specs import LIST_KINDS, ParseSpec, check_specs


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _sequence_specs(sequence_features: Mapping[str, Any] | None) -> list[ParseSpec]:
    specs = []
    for key, feature in (sequence_features or {}).items():
        if isinstance(feature, FixedLenSequenceFeature):
            # allow_missing is checked per example below; check_specs insists on it for Examples
            spec = check_specs({key: feature._replace(allow_missing=True)})[0]
            specs.append((spec, bool(feature.allow_missing)))
        elif isinstance(feature, VarLenFeature):
            specs.append((check_specs({key: feature})[0], True))
        else:
            raise ValueError(
                f"sequence_features[{key!r}] must be tf.io.FixedLenSequenceFeature or "
                f"VarLenFeature; received {feature!r}")
    return specs


def _steps(spec: ParseSpec, allow_missing: bool, feature_lists: Any, index: int,
           names: Sequence[Any] | None) -> list[list]:
    if spec.key not in feature_lists:
        if not allow_missing:
            raise InvalidArgumentError(
                f"{example_label(index, names)}. Feature list '{spec.key}' is required but could "
                f"not be found in sequence example {index}. Give "
                "FixedLenSequenceFeature(allow_missing=True) to read it as empty.")
        return []
    steps = []
    for t, feature in enumerate(feature_lists[spec.key].feature):
        kind = feature.WhichOneof("kind")
        if kind is None:
            values: list = []
        elif kind != spec.list_kind:
            raise kind_error(spec, kind, index, names)
        else:
            values = list(getattr(feature, kind).value)
        if spec.kind == "seq" and len(values) != spec.size:
            raise InvalidArgumentError(
                f"Key: {spec.key}, {example_label(index, names)}. Number of values != expected. "
                f"values size: {len(values)} but output shape: {list(spec.shape)} (step {t} of "
                f"feature list {spec.key!r}).")
        steps.append(values)
    return steps


def _flat(values: list, spec: ParseSpec) -> np.ndarray:
    if spec.dtype == "string":
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return np.array(values, dtype=LIST_KINDS[spec.dtype][2])


def _dense_sequences(spec: ParseSpec, per_example: list[list[list]]) -> tuple[Any, torch.Tensor]:
    n = len(per_example)
    lengths = np.array([len(s) for s in per_example], np.int64)
    max_steps = int(lengths.max()) if n else 0
    fill = spec.default[0] if spec.default is not None else (b"" if spec.dtype == "string" else 0)
    out = np.full((n, max_steps, spec.size), fill, dtype=spec.np_dtype)
    for i, steps in enumerate(per_example):
        if steps:
            out[i, : len(steps)] = _flat([v for s in steps for v in s], spec).reshape(-1, spec.size)
    out = out.reshape((n, max_steps, *spec.shape))
    dense = out if spec.dtype == "string" else torch.from_numpy(out)
    return dense, torch.from_numpy(lengths)


def _sparse_sequences(spec: ParseSpec, per_example: list[list[list]]) -> SparseTensor:
    indices, values = [], []
    max_steps = max_values = 0
    for i, steps in enumerate(per_example):
        max_steps = max(max_steps, len(steps))
        for t, step in enumerate(steps):
            max_values = max(max_values, len(step))
            indices.extend((i, t, j) for j in range(len(step)))
            values.extend(step)
    idx = np.array(indices, np.int64).reshape(-1, 3)
    flat = _flat(values, spec)
    return SparseTensor(idx, flat if spec.dtype == "string" else torch.from_numpy(flat),
                        [len(per_example), max_steps, max_values])


def parse_sequence_example(serialized: Any, context_features: Mapping[str, Any] | None = None,
                           sequence_features: Mapping[str, Any] | None = None,
                           example_names: Any = None, name: str | None = None
                           ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Parses a batch of serialized `tf.train.SequenceExample`s (TF's `tf.io.parse_sequence_example`).

    Returns `(context, feature_lists, lengths)`: the context features as
    `parse_example` gives them; each `FixedLenSequenceFeature` as [batch, max
    steps, *shape] padded with its default_value (0 / b''), each sequence
    `VarLenFeature` as a `SparseTensor` [batch, max steps, max values]; and
    the number of steps of each example for the `FixedLenSequenceFeature`s.
    Raises `tf.errors.InvalidArgumentError` naming the key and example.
    """
    batch = _as_batch(serialized)
    names = _names(example_names, len(batch))
    seq_specs = _sequence_specs(sequence_features)
    contexts: list[bytes] = []
    per_key: dict[str, list] = {spec.key: [] for spec, _ in seq_specs}
    message = SequenceExample()
    for i, data in enumerate(batch):
        try:
            message.ParseFromString(data)
        except DecodeError as e:
            raise InvalidArgumentError(
                f"Could not parse example input, {example_label(i, names)}: {len(data)} bytes are "
                f"not a serialized tf.train.SequenceExample ({e}).") from None
        if context_features:
            ctx = message.context.SerializeToString()
            contexts.append(b"\n" + _varint(len(ctx)) + ctx)
        feature_lists = message.feature_lists.feature_list
        for spec, allow_missing in seq_specs:
            per_key[spec.key].append(_steps(spec, allow_missing, feature_lists, i, names))
    context = parse_example(contexts, context_features, example_names=names) \
        if context_features else {}
    sequences: dict[str, Any] = {}
    lengths: dict[str, Any] = {}
    for spec, _ in seq_specs:
        if spec.kind == "var":
            sequences[spec.key] = _sparse_sequences(spec, per_key[spec.key])
        else:
            sequences[spec.key], lengths[spec.key] = _dense_sequences(spec, per_key[spec.key])
    return context, sequences, lengths


def parse_single_sequence_example(serialized: Any,
                                  context_features: Mapping[str, Any] | None = None,
                                  sequence_features: Mapping[str, Any] | None = None,
                                  example_name: Any = None, name: str | None = None
                                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parses one serialized `tf.train.SequenceExample` (TF's `tf.io.parse_single_sequence_example`).

    Returns `(context, feature_lists)`: a `FixedLenSequenceFeature` as
    [steps, *shape], a sequence `VarLenFeature` as a `SparseTensor` [steps,
    max values], context features as `parse_single_example` gives them.
    """
    if isinstance(serialized, np.ndarray) and serialized.ndim == 0:
        serialized = serialized.item()
    if not isinstance(serialized, (bytes, bytearray, memoryview, str, np.bytes_)):
        raise TypeError("parse_single_sequence_example takes one serialized SequenceExample "
                        f"(bytes); received {type(serialized).__name__}")
    names = None if example_name is None else [example_name]
    context, sequences, _ = parse_sequence_example([serialized], context_features,
                                                   sequence_features, names)
    return ({k: _unbatch(v) for k, v in context.items()},
            {k: _unbatch(v) for k, v in sequences.items()})
