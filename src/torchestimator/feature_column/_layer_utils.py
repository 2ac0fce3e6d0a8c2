"""What DenseFeatures, LinearModel and SequenceFeatures share: checking and
sorting their columns, choosing the output device, checking batch sizes, and
(de)serializing their column lists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch

from torchestimator._ops.control_ops._context import creation_device
from torchestimator.data.columns import packed_matrix
from torchestimator.feature_column import serialization
from torchestimator.feature_column._base import FeatureColumn
from torchestimator.feature_column.numeric import NumericColumn


def normalize_columns(
    feature_columns: Any, allowed: tuple[type, ...], what: str, layer: str
) -> list[Any]:
    """Returns the columns sorted by name, after checking their types and unique names.

    Raises ValueError for a dict, an empty list, a column of another kind
    (`what` says which kinds are allowed), or two columns with one name.
    """
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, Mapping):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    if not isinstance(feature_columns, Iterable):
        raise ValueError(
            f"{layer}: feature_columns must be a list of feature columns, got {feature_columns!r}"
        )
    columns = list(feature_columns)
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    for column in columns:
        if not isinstance(column, allowed):
            raise ValueError(f"Items of feature_columns must be {what}. Given: {column!r}")
    by_name: dict[str, Any] = {}
    for column in columns:
        other = by_name.get(column.name)
        if other is not None:
            raise ValueError(
                f"Duplicate feature column name found for columns: {other!r} and {column!r}. This "
                "usually means that these columns refer to same base feature. Either one must be "
                "discarded or a duplicated but renamed item must be inserted in features dict."
            )
        by_name[column.name] = column
    return sorted(columns, key=lambda c: c.name)


def target_device(layer: torch.nn.Module, features: Mapping[str, Any]) -> torch.device:
    """The device outputs go to: the layer's weights', else that of the first feature on an
    accelerator, else (host features only: numpy arrays, strings, CPU tensors such as the ids
    an Estimator keeps on the host) the device objects are created on now (`creation_device`:
    the `tf.device` block's, a model_fn's, else the default device), where the layers this one
    feeds keep their weights."""
    for p in layer._parameters.values():  # its own weights first: no walk over submodules
        if p is not None:
            return p.device
    if layer._modules:  # weights of nested modules (none in a layer of numeric columns)
        for p in layer.parameters():
            return p.device
    for value in features.values():
        if isinstance(value, torch.Tensor) and value.device.type != "cpu":
            return value.device
    return creation_device()


def check_batch_sizes(outputs: list[tuple[str, torch.Tensor]]) -> None:
    """Raises ValueError when the columns' outputs have different batch sizes."""
    sizes = {name: int(t.shape[0]) for name, t in outputs}
    if len(set(sizes.values())) > 1:
        items = list(sizes.items())
        first = items[0]
        other = next(i for i in items if i[1] != first[1])
        raise ValueError(
            "Batch size (first dimension) of each feature must be same. Batch size of columns "
            f"({first[0]}, {other[0]}): ({first[1]}, {other[1]})"
        )


def columns_config(columns: list[Any]) -> list[dict[str, Any]]:
    """The columns as a list of serialized configs."""
    return serialization.serialize_feature_columns(columns)


def columns_from_config(value: Any, custom_objects: Mapping[str, Any] | None = None) -> list[Any]:
    """Columns back from `columns_config` (or columns passed as they are)."""
    if value and all(isinstance(v, FeatureColumn) for v in value):
        return list(value)
    return serialization.deserialize_feature_columns(value, custom_objects)


def maybe_deserialize(feature_columns: Any) -> Any:
    """Deserializes a list of column configs (from a layer config); anything else is returned as is."""
    if (
        isinstance(feature_columns, (list, tuple))
        and feature_columns
        and all(isinstance(v, Mapping) and "class_name" in v for v in feature_columns)
    ):
        return serialization.deserialize_feature_columns(feature_columns)
    return feature_columns


def check_features(features: Any) -> None:
    """Raises ValueError when `features` is not a dict."""
    if not isinstance(features, Mapping):
        raise ValueError(
            f"We expected a dictionary here. Instead we got: {type(features).__name__}. Pass a dict "
            "of feature name -> values."
        )


def batch_dim(input_shape: Any) -> Any:
    """The batch dimension of a dict of feature shapes (None when unknown)."""
    if isinstance(input_shape, Mapping):
        for shape in input_shape.values():
            if isinstance(shape, (tuple, list)) and shape:
                return shape[0]
    return None


def numeric_runs(columns: tuple) -> tuple[tuple[tuple[str, ...] | None, tuple], ...]:
    """The columns in order, cut into runs: `(keys, columns)` for two or more consecutive plain
    one-value numeric columns (their features are stacked by one op when they are floating
    tensors), `(None, columns)` for the others (each column's own `get_dense_tensor`)."""

    def plain(column: Any) -> bool:
        return type(column) is NumericColumn and column.normalizer_fn is None and column.shape == (1,)

    segments: list = []
    run: list = []
    for column in columns:
        if plain(column):
            run.append(column)
            continue
        if run:
            segments.append(run)
            run = []
        segments.append(column)
    if run:
        segments.append(run)
    out: list = []
    for item in segments:
        if isinstance(item, list) and len(item) > 1:
            out.append((tuple(c.key for c in item), tuple(item)))
        else:
            single = tuple(item) if isinstance(item, list) else (item,)
            if out and out[-1][0] is None:  # merge neighbouring one-at-a-time columns
                out[-1] = (None, out[-1][1] + single)
            else:
                out.append((None, single))
    return tuple(out)


def stacked_numeric(features: Mapping[str, Any], keys: tuple[str, ...], cache: Any = None) -> torch.Tensor | None:
    """The features `keys` stacked as [batch, len(keys)] when each is a floating tensor of shape
    [batch] or [batch, 1] with one batch size; None (take the general path, which also gives
    the errors) for anything else. With the batch's `FeatureTransformationCache`, stacked once
    per batch (wide & deep's linear and DNN parts read the same numeric features)."""
    if cache is None:
        return _stack(features, keys)
    # the layers that pass the cache do not hand the stack out (they multiply or concatenate it),
    # so it may be the input's own matrix
    return cache.memoized(("\0stack", keys), lambda: _stack(features, keys, may_share=True))


def _stack(features: Mapping[str, Any], keys: tuple[str, ...], may_share: bool = False) -> torch.Tensor | None:
    """See `stacked_numeric`. `may_share`: when the features are the columns, in order, of one
    [batch, len(keys)] matrix (`from_tensor_slices` gathers 1-D numeric columns of one dtype
    together, `data.columns.packed`), that matrix itself instead of a stacked copy
    (`data.columns.packed_matrix`)."""
    values = []
    columns = True  # every value is [batch, 1]
    for key in keys:
        value = features.get(key)
        if (type(value) is not torch.Tensor or not value.is_floating_point()
                or value.ndim not in (1, 2) or (value.ndim == 2 and value.shape[1] != 1)):
            return None
        values.append(value)
        columns = columns and value.ndim == 2
    size = values[0].shape[0]
    if any(v.shape[0] != size for v in values):
        return None
    if columns and not may_share:  # (parsed features: one op, the stack's result)
        return torch.cat(values, dim=1)
    values = [v if v.ndim == 1 else v.reshape(-1) for v in values]
    if may_share:
        matrix = packed_matrix(values)  # `data.columns`' accessor for its packed numeric columns
        if matrix is not None:
            return matrix
    return torch.stack(values, dim=1)
