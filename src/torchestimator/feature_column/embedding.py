"""`embedding_column` and `shared_embeddings`: dense, trainable representations of ids.

The table ([num_buckets, dimension]) is a weight of the layer that consumes
the column (DenseFeatures, LinearModel, SequenceFeatures), named
`<column name>/embedding_weights` as in TF's checkpoints; columns made by one
`shared_embeddings` call share one table named
`<shared_embedding_collection_name>` (TF names it so, outside the layer's
scope: `dnn/input_from_feature_columns/<collection>` in a DNN estimator).
"""

from __future__ import annotations

import dataclasses
import glob
import math
import os
from collections.abc import Callable, Iterable
from typing import Any

import torch
from safetensors import safe_open

from torchestimator.feature_column import _combiners, serialization
from torchestimator.feature_column._base import (
    CategoricalColumn,
    DenseColumn,
    SequenceDenseColumn,
    TensorSequenceLengthPair,
    check_positive_int,
    is_sequence_categorical,
)


def _default_initializer(dimension: int) -> dict[str, Any]:
    """TF's default table initializer, truncated normal (mean 0, stddev 1/sqrt(dimension)), as a
    Keras initializer config: the layer that owns the table resolves it (its `add_weight` takes
    any `tf.keras.initializers.get` identifier), so the columns import no Keras."""
    return {"class_name": "TruncatedNormal",
            "config": {"mean": 0.0, "stddev": 1.0 / math.sqrt(dimension), "seed": None}}


def load_from_checkpoint(path: str, tensor_name: str, shape: tuple[int, ...], column: str) -> torch.Tensor:
    """Returns tensor `tensor_name` from a safetensors checkpoint file or directory.

    A directory is searched for `*.safetensors` files, newest first. Raises
    ValueError naming the path, the tensor and the shapes when it is missing
    or of another shape.
    """

    if os.path.isdir(path):
        files = sorted(
            glob.glob(os.path.join(path, "**", "*.safetensors"), recursive=True),
            key=os.path.getmtime, reverse=True,
        )
    elif os.path.exists(path):
        files = [path]
    else:
        raise ValueError(
            f"ckpt_to_load_from {path!r} of column {column!r} does not exist; give a .safetensors "
            "checkpoint file or a directory holding one."
        )
    for file in files:
        with safe_open(file, framework="pt") as f:
            if tensor_name in f.keys():
                value = f.get_tensor(tensor_name)
                if tuple(value.shape) != tuple(shape):
                    raise ValueError(
                        f"Column {column!r}: tensor {tensor_name!r} in {file!r} has shape "
                        f"{tuple(value.shape)}, but the embedding table has shape {tuple(shape)}."
                    )
                return value
    raise ValueError(
        f"Column {column!r}: tensor_name_in_ckpt {tensor_name!r} was not found in {files or path!r}."
    )


def _make_initializer(column: Any, shape: tuple[int, ...]) -> Any:
    if column.ckpt_to_load_from is not None:
        def init(shape_: Any, dtype: Any = None) -> torch.Tensor:
            value = load_from_checkpoint(column.ckpt_to_load_from, column.tensor_name_in_ckpt, shape, column.name)
            return value.to(dtype or torch.float32)

        return init
    return column.initializer if column.initializer is not None else _default_initializer(column.dimension)


class _EmbeddingArgs:
    """Validation shared by embedding and shared-embedding columns."""

    def _check_embedding_args(self, column_name: str) -> None:
        object.__setattr__(self, "dimension", check_positive_int(self.dimension, "dimension", column_name))
        _combiners.check_combiner(self.combiner, "combiner", column_name)
        if self.initializer is not None and not callable(self.initializer):
            raise ValueError(
                f"initializer must be callable if specified. Embedding of column_name: {column_name}"
            )
        if (self.ckpt_to_load_from is None) != (self.tensor_name_in_ckpt is None):
            raise ValueError(
                "Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them."
            )
        if self.max_norm is not None:
            if isinstance(self.max_norm, bool) or not isinstance(self.max_norm, (int, float)) or self.max_norm <= 0:
                raise ValueError(f"max_norm must be a positive number for {column_name!r}, got {self.max_norm!r}")
            object.__setattr__(self, "max_norm", float(self.max_norm))

    def _lookup(self, table: torch.Tensor, transformation_cache: Any, state_manager: Any, per_step: bool) -> torch.Tensor:
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        return _combiners.safe_embedding_lookup(
            table, pair.id_tensor, pair.weight_tensor, self.combiner, self.max_norm, per_step
        )

    def _sequence_pair(self, table: torch.Tensor, transformation_cache: Any, state_manager: Any) -> TensorSequenceLengthPair:
        if not is_sequence_categorical(self.categorical_column):
            raise ValueError(
                f"In embedding_column: {self.name}. categorical_column must be of type "
                "SequenceCategoricalColumn to use SequenceFeatures. Suggested fix: use one of "
                "sequence_categorical_column_with_*. Given (type "
                f"{type(self.categorical_column).__name__}): {self.categorical_column!r}"
            )
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        dense = _combiners.safe_embedding_lookup(
            table, pair.id_tensor, pair.weight_tensor, self.combiner, self.max_norm, per_step=True
        )
        return TensorSequenceLengthPair(dense, _combiners.sequence_length(pair.id_tensor, table.device))

    def _reject_sequence(self) -> None:
        if is_sequence_categorical(self.categorical_column):
            raise ValueError(
                f"In embedding_column: {self.name}. categorical_column must not be of type "
                "SequenceCategoricalColumn. Suggested fix A: If you wish to use DenseFeatures, use "
                "a non-sequence categorical_column_with_*. Suggested fix B: If you wish to create "
                "sequence input, use SequenceFeatures instead of DenseFeatures. Given (type "
                f"{type(self.categorical_column).__name__}): {self.categorical_column!r}"
            )


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class EmbeddingColumn(_EmbeddingArgs, DenseColumn, SequenceDenseColumn):
    """A categorical column looked up in a trainable table (TF's EmbeddingColumn)."""

    categorical_column: CategoricalColumn = dataclasses.field(metadata={"kind": serialization.COLUMN})
    dimension: int = 0
    combiner: str = "mean"
    initializer: Callable | None = dataclasses.field(default=None, metadata={"kind": serialization.OBJECT})
    ckpt_to_load_from: str | None = None
    tensor_name_in_ckpt: str | None = None
    max_norm: float | None = None
    trainable: bool = True
    use_safe_embedding_lookup: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.categorical_column, CategoricalColumn):
            raise ValueError(
                "categorical_column of embedding_column must be a categorical column "
                f"(categorical_column_with_*, crossed_column, ...). Given: {self.categorical_column!r}"
            )
        self._check_embedding_args(self.categorical_column.name)

    @property
    def name(self) -> str:
        """`<categorical column>_embedding`."""
        return f"{self.categorical_column.name}_embedding"

    @property
    def parents(self) -> list[Any]:
        """The categorical column."""
        return [self.categorical_column]

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """The categorical column's spec."""
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self) -> tuple[int, ...]:
        """`(dimension,)`."""
        return (self.dimension,)

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> Any:
        """Returns the categorical column's ids (the lookup needs the layer's table)."""
        return transformation_cache.get(self.categorical_column, state_manager)

    def create_state(self, state_manager: Any) -> None:
        """Creates the table `embedding_weights` [num_buckets, dimension] in `state_manager`."""
        shape = (self.categorical_column.num_buckets, self.dimension)
        state_manager.create_variable(
            self, name="embedding_weights", shape=shape, dtype=torch.float32,
            trainable=self.trainable, initializer=_make_initializer(self, shape),
        )

    def get_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> torch.Tensor:
        """Returns the combined embeddings [batch, dimension]."""
        self._reject_sequence()
        table = state_manager.get_variable(self, "embedding_weights")
        return self._lookup(table, transformation_cache, state_manager, per_step=False)

    def get_sequence_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> TensorSequenceLengthPair:
        """Returns the embedding of every time step [batch, max_time, dimension] and lengths."""
        table = state_manager.get_variable(self, "embedding_weights")
        return self._sequence_pair(table, transformation_cache, state_manager)


def embedding_column(
    categorical_column: CategoricalColumn,
    dimension: int,
    combiner: str = "mean",
    initializer: Callable | None = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: float | None = None,
    trainable: bool = True,
    use_safe_embedding_lookup: bool = True,
) -> EmbeddingColumn:
    """`DenseColumn` that converts from sparse, categorical input.

    The table [num_buckets, dimension] starts from `initializer` (default:
    truncated normal, mean 0, stddev 1/sqrt(dimension)), or from tensor
    `tensor_name_in_ckpt` of the safetensors checkpoint `ckpt_to_load_from`.
    Several ids per example are reduced with `combiner` ('mean', 'sqrtn',
    'sum'; weighted by a `weighted_categorical_column`); `max_norm` clips
    each looked-up embedding to that L2 norm. Ids < 0 are ignored and an
    example without ids gets zeros (TF's safe lookup, always on).

    Returns:
        An `EmbeddingColumn` named `<categorical column>_embedding`.
    """
    return EmbeddingColumn(
        categorical_column, dimension, combiner, initializer, ckpt_to_load_from,
        tensor_name_in_ckpt, max_norm, trainable, use_safe_embedding_lookup,
    )


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class SharedEmbeddingColumn(_EmbeddingArgs, DenseColumn, SequenceDenseColumn):
    """One of several columns looked up in one shared table (TF's SharedEmbeddingColumn).

    Columns share the table when they have the same
    `shared_embedding_collection_name` inside one layer.
    """

    categorical_column: CategoricalColumn = dataclasses.field(metadata={"kind": serialization.COLUMN})
    shared_embedding_collection_name: str = ""
    dimension: int = 0
    num_buckets: int = 0
    combiner: str = "mean"
    initializer: Callable | None = dataclasses.field(default=None, metadata={"kind": serialization.OBJECT})
    ckpt_to_load_from: str | None = None
    tensor_name_in_ckpt: str | None = None
    max_norm: float | None = None
    trainable: bool = True
    use_safe_embedding_lookup: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.categorical_column, CategoricalColumn):
            raise ValueError(
                f"All categorical_columns must be subclasses of CategoricalColumn. Given: "
                f"{self.categorical_column!r}"
            )
        if not isinstance(self.shared_embedding_collection_name, str) or not self.shared_embedding_collection_name:
            raise ValueError("shared_embedding_collection_name must be a non-empty string")
        self._check_embedding_args(self.categorical_column.name)
        if self.num_buckets != self.categorical_column.num_buckets:
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same number "
                f"of buckets. Given column: {self.categorical_column.name} with buckets: "
                f"{self.categorical_column.num_buckets} does not match the table's {self.num_buckets}."
            )

    @property
    def name(self) -> str:
        """`<categorical column>_shared_embedding`."""
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def parents(self) -> list[Any]:
        """The categorical column."""
        return [self.categorical_column]

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """The categorical column's spec."""
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self) -> tuple[int, ...]:
        """`(dimension,)`."""
        return (self.dimension,)

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> Any:
        """Returns the categorical column's ids."""
        return transformation_cache.get(self.categorical_column, state_manager)

    def create_state(self, state_manager: Any) -> None:
        """Creates the shared table once per collection name in `state_manager`."""
        shape = (self.num_buckets, self.dimension)
        state_manager.create_shared_variable(
            self.shared_embedding_collection_name, name="embedding_weights", shape=shape,
            dtype=torch.float32, trainable=self.trainable, initializer=_make_initializer(self, shape),
        )

    def _table(self, state_manager: Any) -> torch.Tensor:
        return state_manager.get_shared_variable(self.shared_embedding_collection_name, "embedding_weights")

    def get_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> torch.Tensor:
        """Returns the combined embeddings [batch, dimension] from the shared table."""
        self._reject_sequence()
        return self._lookup(self._table(state_manager), transformation_cache, state_manager, per_step=False)

    def get_sequence_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> TensorSequenceLengthPair:
        """Returns the embedding of every time step [batch, max_time, dimension] and lengths."""
        return self._sequence_pair(self._table(state_manager), transformation_cache, state_manager)


def shared_embeddings(
    categorical_columns: Iterable[CategoricalColumn],
    dimension: int,
    combiner: str = "mean",
    initializer: Callable | None = None,
    shared_embedding_collection_name: str | None = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: float | None = None,
    trainable: bool = True,
    use_safe_embedding_lookup: bool = True,
) -> list[SharedEmbeddingColumn]:
    """List of dense columns that convert from sparse, categorical input, sharing one table.

    All `categorical_columns` must have the same number of buckets (and be of
    the same kind). The table is named by `shared_embedding_collection_name`
    (default: the sorted column names joined by '_', plus '_shared_embedding').
    Unlike TF 2.15, which raises RuntimeError under eager execution, this works
    everywhere: the table lives in the consuming layer.

    Returns:
        A list of `SharedEmbeddingColumn`, in the order of `categorical_columns`.
    """
    if isinstance(categorical_columns, CategoricalColumn) or not isinstance(categorical_columns, Iterable):
        raise ValueError(
            f"categorical_columns must be a list of categorical columns. Given: {categorical_columns!r}"
        )
    columns = list(categorical_columns)
    if not columns:
        raise ValueError("categorical_columns must not be empty.")
    for c in columns:
        if not isinstance(c, CategoricalColumn):
            raise ValueError(
                f"All categorical_columns must be subclasses of CategoricalColumn. Given: {c!r}"
            )
    first = columns[0]
    for c in columns[1:]:
        if type(c) is not type(first):
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same type, "
                f"or be weighted_categorical_column or sequence column of the same type. Given "
                f"column: {first!r} of type: {type(first).__name__} does not match given column: "
                f"{c!r} of type: {type(c).__name__}"
            )
        if c.num_buckets != first.num_buckets:
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same number "
                f"of buckets. Given column: {first!r} with buckets: {first.num_buckets} does not "
                f"match column: {c!r} with buckets: {c.num_buckets}"
            )
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(sorted(c.name for c in columns)) + "_shared_embedding"
    return [
        SharedEmbeddingColumn(
            c, shared_embedding_collection_name, dimension, first.num_buckets, combiner, initializer,
            ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable, use_safe_embedding_lookup,
        )
        for c in columns
    ]
