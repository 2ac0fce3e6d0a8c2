"""A head for sequential models (TF's `SequentialHeadWrapper`): wraps a head and applies the
sequence mask, so that loss and metrics count only the real (unpadded) steps and predictions
carry the mask.

The wrapped head sees `[n, ...]` tensors: the steps of every sequence where the mask is True,
flattened in batch-major order, as TF's `_flatten` gathers them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from torchestimator.estimator.head.base_head import Head
from torchestimator.estimator.head.multi_head import MultiHead
from torchestimator.estimator.mode_keys import ModeKeys


class SequentialHeadWrapper(Head):
    """Sequential head wrapping a `Head` object (`static_head`).

    Args:
      static_head: the head to wrap (not a `MultiHead`).
      sequence_length_mask: the key of the sequence mask in the features dict, a bool or 0/1
        tensor of shape [batch_size, seq_length].
      feature_columns: a string or a list of strings: the features (typically a weight) that
        are flattened with the mask and passed to the wrapped head.
    """

    def __init__(self, static_head: Head, sequence_length_mask: str = "sequence_length_mask",
                 feature_columns: Any = None):
        if not isinstance(sequence_length_mask, str):
            raise TypeError(f"`sequence_mask` column must be a string. Given type: {type(sequence_length_mask)}.")
        feature_columns = feature_columns or []
        if isinstance(feature_columns, str):
            feature_columns = [feature_columns]
        if not isinstance(feature_columns, Iterable):
            raise TypeError("`feature_columns` must be either a string or an iterable of strings got "
                            f"{type(feature_columns)} instead.")
        feature_columns = list(feature_columns)
        for column in feature_columns:
            if not isinstance(column, str):
                raise TypeError(f"Column must a string. Given type: {type(column)}.")
        if isinstance(static_head, MultiHead):
            raise ValueError("`MultiHead` is not supported with `SequentialHeadWrapper`.")
        self._sequence_length_mask = sequence_length_mask
        self._feature_columns = feature_columns
        self._static_head = static_head

    @property
    def input_sequence_mask_key(self) -> str:
        """Key of the sequence mask tensor in the feature dictionary."""
        return self._sequence_length_mask

    @property
    def name(self) -> str | None:
        """The wrapped head's name."""
        return self._static_head.name

    @property
    def logits_dimension(self) -> int:
        """The wrapped head's logits dimension."""
        return self._static_head.logits_dimension

    @property
    def loss_reduction(self) -> str:
        """The wrapped head's loss reduction."""
        return self._static_head.loss_reduction

    @property
    def static_head(self) -> Head:
        """The wrapped head."""
        return self._static_head

    def _flatten(self, labels: Any, logits: Any, features: Any) -> tuple[Any, Any, dict]:
        """The steps where the mask is True of labels, logits and the head's features."""
        if not isinstance(features, dict) or self.input_sequence_mask_key not in features:
            keys = list(features) if isinstance(features, dict) else type(features).__name__
            raise ValueError(
                f"The provided sequence_length_mask key `{self.input_sequence_mask_key}` should be "
                f"included in the features dictionary, but was not found. Found keys: {keys}."
            )
        mask = torch.as_tensor(features[self.input_sequence_mask_key])
        if mask.ndim != 2:
            raise ValueError(f"Mask is expected to have two dimensions, got {mask.ndim} instead.")
        mask = mask.to(torch.bool)
        flat = {}
        for column in self._feature_columns:
            if column not in features:
                raise ValueError(f"`{column}` column expected in features dictionary.")
            flat[column] = _flatten_tensor(features[column], mask, column)
        return _flatten_tensor(labels, mask, "labels"), _flatten_tensor(logits, mask, "logits"), flat

    def loss(self, labels: Any, logits: Any, features: Any = None, mode: str | None = None,
             regularization_losses: Any = None) -> torch.Tensor:
        """The wrapped head's loss over the unmasked steps."""
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.loss(flat_labels, flat_logits, features=flat_features, mode=mode,
                                      regularization_losses=regularization_losses)

    def predictions(self, logits: Any, keys: Any = None) -> dict:
        """The wrapped head's predictions."""
        return self._static_head.predictions(logits, keys=keys)

    def metrics(self, regularization_losses: Any = None) -> dict:
        """The wrapped head's metrics."""
        return self._static_head.metrics(regularization_losses=regularization_losses)

    def update_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                       regularization_losses: Any = None) -> dict:
        """Updates the wrapped head's metrics with the unmasked steps."""
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.update_metrics(eval_metrics, flat_features, flat_logits, flat_labels,
                                                regularization_losses=regularization_losses)

    def create_estimator_spec(self, features: Any, mode: str, logits: Any, labels: Any = None,
                              optimizer: Any = None, trainable_variables: Any = None,
                              train_op_fn: Any = None, update_ops: Any = None,
                              regularization_losses: Any = None) -> Any:
        """PREDICT: the wrapped head's spec on the whole sequences, its predictions plus the
        mask under `input_sequence_mask_key`. TRAIN and EVAL: the wrapped head's spec on the
        unmasked steps."""
        if mode == ModeKeys.PREDICT:
            spec = self._static_head.create_estimator_spec(features=features, mode=mode, logits=logits)
            predictions = dict(spec.predictions)
            predictions[self.input_sequence_mask_key] = features[self.input_sequence_mask_key]
            return spec._replace(predictions=predictions)
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.create_estimator_spec(
            features=flat_features, mode=mode, logits=flat_logits, labels=flat_labels, optimizer=optimizer,
            trainable_variables=trainable_variables, train_op_fn=train_op_fn, update_ops=update_ops,
            regularization_losses=regularization_losses)


def _flatten_tensor(value: Any, mask: torch.Tensor, what: str) -> torch.Tensor:
    """`value[mask]`: its first two dimensions ([batch, time], those of `mask`) flattened to the
    steps where `mask` is True."""
    if not isinstance(value, torch.Tensor):
        if hasattr(value, "to_dense"):  # a SparseTensor
            value = value.to_dense()
        value = torch.as_tensor(value)
    if value.ndim < 2:
        raise ValueError(f"Tensor `{what}` must have at least two dimensions [batch, time]; got shape "
                         f"{tuple(value.shape)}.")
    if tuple(value.shape[:2]) != tuple(mask.shape):
        raise ValueError(f"Tensor `{what}` has [batch, time] {tuple(value.shape[:2])}, the sequence mask "
                         f"{tuple(mask.shape)}; they must agree.")
    return value[mask.to(value.device)]
