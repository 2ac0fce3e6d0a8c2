"""Recurrent neural network estimators: `tf.estimator.experimental.RNNEstimator` and
`RNNClassifier` (TF 2.15).

The network (TF's `RNNModel`): `SequenceFeatures(sequence_feature_columns)` gives
`[batch, time, dims]` and the sequence lengths; the context columns
(`DenseFeatures(context_feature_columns)`) are repeated at every step and concatenated
after the sequence input; a Keras RNN layer (`SimpleRNN`, `LSTM`, `GRU`, or `RNN` over the
cells of `rnn_cell_fn`) runs with the length mask; a Dense layer named `logits` gives the
head's logits, of the last step or, with `return_sequences`, of every step (then the head
is a `SequentialHeadWrapper` that counts only the unpadded steps). A string optimizer gets
learning rate 0.05 and gradient clip norm 5.0, as TF.
"""

from __future__ import annotations

import re
from typing import Any

import torch

from torchestimator.estimator.canned import _validation, optimizers
from torchestimator.estimator.canned._trainable import trainable_variables
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.head import binary_or_multi_class_head
from torchestimator.estimator.head.base_head import Head
from torchestimator.estimator.head.sequential_head import SequentialHeadWrapper
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.keras import layers
from torchestimator.keras.feature_column._dense_features import DenseFeatures
from torchestimator.keras.feature_column._sequence_features import SequenceFeatures

_DEFAULT_LEARNING_RATE = 0.05
_DEFAULT_CLIP_NORM = 5.0
_SIMPLE_RNN_KEY, _LSTM_KEY, _GRU_KEY = "simple_rnn", "lstm", "gru"

USE_DEFAULT = object()
"""Marks an argument the caller did not give (TF's `USE_DEFAULT`)."""


def _layers() -> Any:
    return layers


def _cell_types() -> dict[str, type]:
    layers = _layers()
    return {_LSTM_KEY: layers.LSTMCell, _GRU_KEY: layers.GRUCell, _SIMPLE_RNN_KEY: layers.SimpleRNNCell}


def _layer_types() -> dict[str, type]:
    layers = _layers()
    return {_LSTM_KEY: layers.LSTM, _GRU_KEY: layers.GRU, _SIMPLE_RNN_KEY: layers.SimpleRNN}


def _single_rnn_cell(units: int, cell_type: Any) -> Any:
    cell_type = _cell_types().get(cell_type, cell_type) if isinstance(cell_type, str) else cell_type
    if not callable(cell_type):
        raise ValueError(
            "`cell_type` should be a class producing a RNN cell, or a string specifying the cell type. "
            f"Supported strings are: {[_SIMPLE_RNN_KEY, _LSTM_KEY, _GRU_KEY]}; received {cell_type!r}."
        )
    cell = cell_type(units=units)
    if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
        raise ValueError("RNN cell should have a `call` and `state_size` method.")
    return cell


def _make_rnn_cell_fn(units: Any, cell_type: Any = _SIMPLE_RNN_KEY) -> Any:
    """A function returning the RNN cell (or list of cells) of `units` per layer."""

    def rnn_cell_fn() -> Any:
        cells = [_single_rnn_cell(n, cell_type) for n in units]
        return cells[0] if len(cells) == 1 else cells

    return rnn_cell_fn


def _verify_rnn_cell_input(rnn_cell_fn: Any, units: Any, cell_type: Any) -> None:
    if rnn_cell_fn and (units or cell_type is not USE_DEFAULT):
        raise ValueError("units and cell_type must not be specified when using rnn_cell_fn")


def _make_rnn_layer(rnn_cell_fn: Any, units: Any, cell_type: Any, return_sequences: bool) -> Any:
    """The Keras RNN layer: a `SimpleRNN`/`LSTM`/`GRU` layer for one int `units` and a cell
    name, else `RNN` over the cells of `rnn_cell_fn` (or of `units` and `cell_type`)."""
    _verify_rnn_cell_input(rnn_cell_fn, units, cell_type)
    if isinstance(cell_type, str) and cell_type in _layer_types() and isinstance(units, int):
        return _layer_types()[cell_type](units=units, return_sequences=return_sequences)
    if not rnn_cell_fn:
        if units is None:
            raise ValueError("RNNEstimator: give `units` (an iterable of ints, with `cell_type`) or `rnn_cell_fn`.")
        if isinstance(units, int):
            units = [units]
        rnn_cell_fn = _make_rnn_cell_fn(units, _SIMPLE_RNN_KEY if cell_type is USE_DEFAULT else cell_type)
    return _layers().RNN(cell=rnn_cell_fn(), return_sequences=return_sequences)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower().replace("r_n_n", "rnn").replace("l_s_t_m", "lstm")


def _auto_base(layer: Any) -> str:
    """The base of the name Keras gives `layer` when none is given ('lstm_cell' for LSTMCell)."""
    return {"LSTMCell": "lstm_cell", "GRUCell": "gru_cell", "SimpleRNNCell": "simple_rnn_cell",
            "StackedRNNCells": "stacked_rnn_cells", "SimpleRNN": "simple_rnn", "LSTM": "lstm", "GRU": "gru",
            "RNN": "rnn"}.get(type(layer).__name__, _snake(type(layer).__name__))


def _name_as_tf(rnn_layer: Any) -> None:
    """Names the RNN layer and its cells as TF's `RNNModel` graph names them, so that the
    checkpoint holds `rnn_model/rnn/lstm_cell/kernel`, `rnn_model/gru/gru_cell/kernel`,
    `rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell_1/kernel`, ... A cell the user named
    keeps its name under the layer's. Runs before the layers are built (their weights take
    their names then)."""
    if rnn_layer.built:
        return
    rnn_layer.name = f"rnn_model/{_auto_base(rnn_layer)}"
    cell = rnn_layer.cell
    cells = [cell]
    prefix = rnn_layer.name
    if type(cell).__name__ == "StackedRNNCells":
        cell.name = f"{prefix}/stacked_rnn_cells"
        prefix, cells = cell.name, list(cell.cells)
    counts: dict[str, int] = {}
    for c in cells:
        base = _auto_base(c)
        if re.fullmatch(re.escape(base) + r"(_\d+)?", c.name):  # Keras' automatic name
            n = counts.get(base, 0)
            counts[base] = n + 1
            c.name = f"{prefix}/{base}" if n == 0 else f"{prefix}/{base}_{n}"
        else:
            c.name = f"{prefix}/{c.name}"


def _concatenate_context_input(context_input: torch.Tensor, sequence_input: torch.Tensor) -> torch.Tensor:
    """`context_input` [batch, d] repeated at every step and appended to `sequence_input`
    [batch, time, n]: [batch, time, n + d] (TF's `concatenate_context_input`)."""
    if sequence_input.ndim != 3:
        raise ValueError(f"sequence_input must have rank 3; got shape {tuple(sequence_input.shape)}.")
    if context_input.ndim != 2:
        raise ValueError(f"context_input must have rank 2; got shape {tuple(context_input.shape)}.")
    steps = sequence_input.shape[1]
    tiled = context_input.to(sequence_input.dtype).unsqueeze(1).expand(-1, steps, -1)
    return torch.cat([sequence_input, tiled], dim=2)


def rnn_logits(features: Any, mode: str, units: int, rnn_layer_fn: Any, sequence_feature_columns: tuple,
               context_feature_columns: tuple, return_sequences: bool) -> tuple[torch.Tensor, torch.Tensor, list]:
    """Builds (once per Estimator) and runs the RNN model; returns `(logits, sequence mask,
    trainable variables)`."""

    training = mode == ModeKeys.TRAIN
    sequence_layer = SequenceFeatures(sequence_feature_columns, name="sequence_features")
    used = [sequence_layer]
    sequence_input, sequence_length = sequence_layer(features, training=training)
    if context_feature_columns:
        context_layer = DenseFeatures(context_feature_columns, name="dense_features")
        used.append(context_layer)
        sequence_input = _concatenate_context_input(context_layer(features), sequence_input)
    steps = sequence_input.shape[1]
    mask = torch.arange(steps, device=sequence_length.device)[None, :] < sequence_length[:, None]
    rnn_layer = rnn_layer_fn()
    _name_as_tf(rnn_layer)
    used.append(rnn_layer)
    outputs = rnn_layer(sequence_input, mask=mask.to(sequence_input.device), training=training)
    logits_layer = layers.Dense(units=units, name="rnn_model/logits")
    used.append(logits_layer)
    return logits_layer(outputs), mask, trainable_variables(used)


def _rnn_optimizer(optimizer: Any) -> Any:
    if isinstance(optimizer, str):
        opt = optimizers.get_optimizer_instance_v2(optimizer, learning_rate=_DEFAULT_LEARNING_RATE)
        opt.clipnorm = _DEFAULT_CLIP_NORM
        return opt
    return optimizers.get_optimizer_instance_v2(optimizer)


class RNNEstimator(Estimator):
    """An Estimator for TensorFlow RNN models with user-specified head.

    Example:

        token_sequence = tf.feature_column.sequence_categorical_column_with_hash_bucket(...)
        token_emb = tf.feature_column.embedding_column(categorical_column=token_sequence, ...)
        estimator = tf.estimator.experimental.RNNEstimator(
            head=tf.estimator.RegressionHead(), sequence_feature_columns=[token_emb],
            units=[32, 16], cell_type='lstm')

    Args:
      head: A `Head` instance; with `return_sequences`, a `SequentialHeadWrapper`.
      sequence_feature_columns: the sequence columns (`sequence_numeric_column`, or
        `embedding_column` / `indicator_column` over `sequence_categorical_column_*`).
      context_feature_columns: dense columns whose values are repeated at every step.
      units: Iterable of integer number of hidden units per RNN layer (with `cell_type`).
      cell_type: A class producing a RNN cell, or 'simple_rnn', 'lstm' or 'gru'.
      rnn_cell_fn: A function returning a RNN cell (or a list of cells); excludes `units`
        and `cell_type`.
      return_sequences: Whether the logits are of every step (True) or of the last one.
      model_dir: Directory to save model parameters and summaries.
      optimizer: A string or a `tf.keras.optimizers` instance; defaults to Adagrad (a
        string gets learning rate 0.05 and clip norm 5.0).
      config: `RunConfig` object.

    Raises:
      ValueError: If `units`, `cell_type` and `rnn_cell_fn` are not compatible, or the head
        is not sequential while `return_sequences` is set.
    """

    def __init__(self, head: Head, sequence_feature_columns: Any, context_feature_columns: Any = None,
                 units: Any = None, cell_type: Any = USE_DEFAULT, rnn_cell_fn: Any = None,
                 return_sequences: bool = False, model_dir: str | None = None, optimizer: Any = "Adagrad",
                 config: Any = None):
        owner = type(self).__name__
        if not isinstance(head, Head):
            raise ValueError(f"{owner}: head must be a tf.estimator Head; given {head!r}.")
        if return_sequences and not isinstance(head, SequentialHeadWrapper):
            raise ValueError("Provided head must be a `_SequentialHead` object when `return_sequences` is set to True.")
        _verify_rnn_cell_input(rnn_cell_fn, units, cell_type)
        if not rnn_cell_fn and units is None:
            raise ValueError(f"{owner}: give `units` (an iterable of ints, with `cell_type`) or `rnn_cell_fn`.")
        sequence_feature_columns = _validation.sequence_columns(
            sequence_feature_columns, "sequence_feature_columns", owner)
        context_feature_columns = tuple(_validation.dense_columns(
            context_feature_columns, "context_feature_columns", owner)) if context_feature_columns else ()
        optimizers.check_optimizer_argument(optimizer, "optimizer", owner)
        self._head = head

        def _rnn_layer() -> Any:
            return _make_rnn_layer(rnn_cell_fn, units, cell_type, bool(return_sequences))

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            del config
            _validation.validate_features(features)
            logits, mask, variables = rnn_logits(
                features, mode, head.logits_dimension, _rnn_layer, sequence_feature_columns,
                context_feature_columns, bool(return_sequences))
            if return_sequences and head.input_sequence_mask_key not in features:
                features = dict(features)
                features[head.input_sequence_mask_key] = mask
            train_optimizer = None
            if mode == ModeKeys.TRAIN:
                train_optimizer = optimizers.optimizer_for_model_fn("rnn", lambda: _rnn_optimizer(optimizer))
            return head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                              optimizer=train_optimizer, logits=logits,
                                              trainable_variables=variables)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class RNNClassifier(RNNEstimator):
    """A classifier for TensorFlow RNN models (`tf.estimator.experimental.RNNClassifier`).

    Trains a recurrent neural network model to classify instances into one of multiple
    classes; loss is softmax cross entropy (sigmoid for 2 classes). With
    `return_sequences`, every step is classified and the head is wrapped in a
    `SequentialHeadWrapper` reading the mask from `features[sequence_mask]` (computed from
    the sequence lengths when absent).

    Args: as `RNNEstimator`, plus `n_classes` (default 2), `weight_column`,
      `label_vocabulary`, `loss_reduction` (default `SUM_OVER_BATCH_SIZE`) and
      `sequence_mask` (the key of the sequence mask, default 'sequence_mask').
    """

    def __init__(self, sequence_feature_columns: Any, context_feature_columns: Any = None, units: Any = None,
                 cell_type: Any = USE_DEFAULT, rnn_cell_fn: Any = None, return_sequences: bool = False,
                 model_dir: str | None = None, n_classes: int = 2, weight_column: Any = None,
                 label_vocabulary: Any = None, optimizer: Any = "Adagrad",
                 loss_reduction: str = "sum_over_batch_size", sequence_mask: str = "sequence_mask",
                 config: Any = None):
        head = binary_or_multi_class_head(n_classes, weight_column=weight_column,
                                          label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
        if return_sequences:
            head = SequentialHeadWrapper(head, sequence_length_mask=sequence_mask, feature_columns=weight_column)
        super().__init__(head=head, sequence_feature_columns=sequence_feature_columns,
                         context_feature_columns=context_feature_columns, units=units, cell_type=cell_type,
                         rnn_cell_fn=rnn_cell_fn, return_sequences=return_sequences, model_dir=model_dir,
                         optimizer=optimizer, config=config)
