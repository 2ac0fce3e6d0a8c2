"""`Head`: the interface of the heads (loss, predictions, eval metrics, EstimatorSpec), and
what the heads share — TF 2.15's `tensorflow_estimator/python/estimator/head/base_head.py`.

A head turns logits into predictions, a training loss and eval metrics. Its
`create_estimator_spec` makes the `EstimatorSpec` a `model_fn` returns, so a
custom `model_fn` only computes logits:

    head = tf.estimator.MultiClassHead(n_classes=3)
    def model_fn(features, labels, mode):
        logits = my_model(features)
        return head.create_estimator_spec(
            features, mode, logits, labels, optimizer=tf.keras.optimizers.Adagrad(0.05))

The metrics a head creates in `metrics()` are Keras metrics; inside a
`model_fn` they are created once and reused (and reset by `evaluate()`).
"""

from __future__ import annotations

import inspect
from collections import namedtuple
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator._engine.train_op import TrainOp, group
from torchestimator.estimator._lazy_predictions import LazyPredictions
from torchestimator.estimator.estimator_spec import EstimatorSpec
from torchestimator.estimator.head.keys import MetricKeys
from torchestimator.estimator.mode_keys import ModeKeys, check_mode
from torchestimator.feature_column import NumericColumn
from torchestimator.keras.metrics import Mean
from torchestimator.keras.optimizers import Optimizer
from torchestimator.summary._summary import _record

LossParts = namedtuple("LossParts", ["labels", "unweighted_loss", "weights"])
"""What one batch's loss is made of: processed labels, the per-example loss, the weights."""

# tf.keras.losses.Reduction and tf.compat.v1.losses.Reduction values.
_SUM = ("sum", "weighted_sum")
_SUM_OVER_BATCH_SIZE = ("sum_over_batch_size", "auto", "weighted_sum_over_batch_size")
_MEAN = ("weighted_mean",)
_SUM_BY_NONZERO_WEIGHTS = ("weighted_sum_by_nonzero_weights",)
VALID_REDUCTIONS = _SUM + _SUM_OVER_BATCH_SIZE + _MEAN + _SUM_BY_NONZERO_WEIGHTS


def validate_loss_reduction(loss_reduction: Any) -> str:
    """Raises ValueError unless `loss_reduction` is a `tf.losses.Reduction` other than NONE."""
    if loss_reduction not in VALID_REDUCTIONS:
        raise ValueError(
            f"Invalid loss_reduction: {loss_reduction!r}. See `tf.losses.Reduction` for valid "
            f"options: one of {list(VALID_REDUCTIONS)} (NONE is not allowed: the training loss "
            "must be a scalar)."
        )
    return loss_reduction


def validate_loss_fn_args(loss_fn: Any) -> None:
    """Raises ValueError unless `loss_fn` takes `labels` and `logits` (and optionally
    `features`, `loss_reduction`) by name."""
    if not callable(loss_fn):
        raise ValueError(f"loss_fn must be callable; given {loss_fn!r}.")
    args = set(inspect.signature(loss_fn).parameters)
    for required in ("labels", "logits"):
        if required not in args:
            raise ValueError(f"loss_fn must contain argument: {required}. Given arguments: {sorted(args)}")
    invalid = args - {"labels", "logits", "features", "loss_reduction"}
    if invalid:
        raise ValueError(f"loss_fn has unexpected args: {sorted(invalid)}")


def call_loss_fn(loss_fn: Any, labels: torch.Tensor, logits: torch.Tensor, features: Any,
                 expected_loss_dim: int = 1) -> torch.Tensor:
    """Calls `loss_fn(labels=..., logits=...[, features=...])` and checks it returned
    [D0, ... DN, expected_loss_dim]."""
    kwargs = {}
    if "features" in inspect.signature(loss_fn).parameters:
        kwargs["features"] = features
    loss = loss_fn(labels=labels, logits=logits, **kwargs)
    if not isinstance(loss, torch.Tensor):
        loss = torch.as_tensor(loss, dtype=torch.float32, device=logits.device)
    expected = tuple(logits.shape[:-1]) + (expected_loss_dim,)
    if tuple(loss.shape) != expected:
        raise ValueError(
            f"loss_fn must return Tensor of shape [D0, D1, ... DN, {expected_loss_dim}]. "
            f"logits_shape: {tuple(logits.shape)}, loss_shape: {tuple(loss.shape)}."
        )
    return loss


def fused_reduction(loss_reduction: str) -> str | None:
    """The torch `reduction=` equal to `loss_reduction` for unweighted per-example losses of
    dimension 1 ('mean' for SUM_OVER_BATCH_SIZE, 'sum' for SUM), else None."""
    if loss_reduction in _SUM_OVER_BATCH_SIZE:
        return "mean"
    if loss_reduction in _SUM:
        return "sum"
    return None


def compute_weighted_loss(unweighted_loss: torch.Tensor, weights: Any, reduction: str) -> torch.Tensor:
    """Weights the per-example losses and reduces them to the scalar training loss.

    SUM: the weighted sum; SUM_OVER_BATCH_SIZE: that sum divided by the number of
    loss elements (batch x dimension); TF1's MEAN: divided by the sum of weights;
    SUM_BY_NONZERO_WEIGHTS: divided by the number of non-zero weights.
    """
    losses = unweighted_loss.float()
    if isinstance(weights, torch.Tensor):
        weights = torch.broadcast_to(weights.to(losses.dtype), losses.shape)
        weighted = losses * weights
    elif float(weights) == 1.0:
        weighted = losses
    else:
        weighted = losses * float(weights)
    total = weighted.sum()
    if reduction in _SUM:
        return total
    if reduction in _SUM_OVER_BATCH_SIZE:
        return total / max(losses.numel(), 1)
    full = weights if isinstance(weights, torch.Tensor) else torch.full_like(losses, float(weights))
    if reduction in _MEAN:
        denominator = full.sum()
    else:
        denominator = (full != 0).sum().to(losses.dtype)
    return torch.where(denominator > 0, total / denominator.clamp_min(1e-12), torch.zeros_like(total))


def check_logits_final_dim(logits: Any, expected_logits_dimension: int) -> torch.Tensor:
    """Returns logits as float32 after checking their shape is [D0, ... DN, logits_dimension]."""
    if not isinstance(logits, torch.Tensor):
        logits = torch.as_tensor(logits)
    if logits.dtype is not torch.float32:
        logits = logits.float()
    if logits.dim() < 2:
        raise ValueError(
            f"logits must have rank at least 2.  Received rank {logits.dim()}, shape "
            f"{tuple(logits.shape)}"
        )
    if logits.shape[-1] != expected_logits_dimension:
        raise ValueError(
            f"logits shape must be [D0, D1, ... DN, logits_dimension], got {tuple(logits.shape)}; "
            f"logits_dimension is {expected_logits_dimension}."
        )
    return logits


def check_dense_labels_match_logits_and_reshape(labels: torch.Tensor, logits: torch.Tensor,
                                                expected_labels_dimension: int) -> torch.Tensor:
    """Checks labels are [D0, ... DN, expected_labels_dimension] (or [D0, ... DN] when that
    dimension is 1, then reshaped); returns them."""
    if labels.dim() == logits.dim() - 1:
        labels = labels.unsqueeze(-1)
    if labels.dim() < 2:
        raise ValueError(
            f"labels must have rank at least 2.  Received rank {labels.dim()}, shape {tuple(labels.shape)}"
        )
    if labels.shape[-1] != expected_labels_dimension:
        raise ValueError(
            f"Mismatched label shape. Expected labels dimension={expected_labels_dimension}.  "
            f"Received {labels.shape[-1]}. Suggested Fix: If your classifier expects one-hot "
            "encoding label, check your n_classes argument to the estimator and/or the shape of "
            "your label. Otherwise, check the shape of your label."
        )
    expected = tuple(logits.shape[:-1]) + (expected_labels_dimension,)
    if tuple(labels.shape) != expected:
        raise ValueError(
            f"labels shape must be [D0, D1, ... DN, {expected_labels_dimension}], "
            f"expected_labels_shape: {expected}. labels_shape: {tuple(labels.shape)}."
        )
    return labels


def get_weights_and_check_match_logits(features: Any, weight_column: Any, logits: torch.Tensor,
                                       allow_per_logit_weights: bool = False) -> Any:
    """The example weights from `features` (1.0 without a `weight_column`), as float32
    [D0, ... DN, 1] (or [..., logits_dimension] when allowed)."""
    if weight_column is None:
        return 1.0

    if isinstance(weight_column, str):
        key, normalizer_fn = weight_column, None
    elif isinstance(weight_column, NumericColumn):
        key, normalizer_fn = weight_column.key, weight_column.normalizer_fn
    else:
        raise TypeError(
            "Weight column must be either a string or NumericColumn. Given type: "
            f"{type(weight_column).__name__}."
        )
    if not isinstance(features, Mapping) or key not in features:
        present = sorted(features) if isinstance(features, Mapping) else type(features).__name__
        raise ValueError(
            f"weight_column {key!r} is not in the features; features present: {present}. Add the "
            "example weights to the features dict input_fn returns."
        )
    raw = features[key]
    if not isinstance(raw, torch.Tensor):
        array = np.asarray(raw)
        if array.dtype.kind not in "biuf":
            raise ValueError(f"Weight column should be castable to float. Given dtype: {array.dtype}")
        raw = torch.as_tensor(array)
    elif raw.dtype == torch.bool or raw.is_complex():
        raise ValueError(f"Weight column should be castable to float. Given dtype: {raw.dtype}")
    weights = raw.to(device=logits.device, dtype=torch.float32)
    if normalizer_fn is not None:
        weights = torch.as_tensor(normalizer_fn(weights)).to(device=logits.device, dtype=torch.float32)
    err = ("weights shape must be [D0, D1, ... DN], [D0, D1, ... DN, 1] or [D0, D1, ... DN, "
           "logits_dimension]" if allow_per_logit_weights else
           "weights shape must be [D0, D1, ... DN] or [D0, D1, ... DN, 1]")
    logits_shape = tuple(logits.shape)
    weights_shape = tuple(weights.shape)
    if weights_shape == logits_shape[:-1]:
        return weights.unsqueeze(-1)
    if weights_shape == logits_shape[:-1] + (1,):
        return weights
    if allow_per_logit_weights and weights_shape == logits_shape:
        return weights
    raise ValueError(f"{err}, logits_shape: {logits_shape}. weights_shape: {weights_shape}.")


def broadcast_weights(weights: Any, values: torch.Tensor) -> Any:
    """`weights` broadcast to the shape of `values`, for a metric's `sample_weight` (None when
    there are no example weights)."""
    if isinstance(weights, torch.Tensor):
        return torch.broadcast_to(weights, values.shape)
    if weights == 1.0:
        return None
    return torch.full(values.shape, float(weights), device=values.device)


def validate_v2_optimizer(optimizer: Any) -> None:
    """Raises ValueError unless `optimizer` is a `tf.keras.optimizers.Optimizer`."""

    if not isinstance(optimizer, Optimizer):
        raise ValueError(
            "The given optimizer is not a tf.keras.optimizers.Optimizer instance. Given: "
            f"{optimizer!r}"
        )


def create_estimator_spec_train_op(head_name: str | None, optimizer: Any = None,
                                   trainable_variables: Any = None, train_op_fn: Any = None,
                                   update_ops: Any = None, regularized_training_loss: Any = None,
                                   loss_reduction: str = "sum_over_batch_size") -> Any:
    """The train op of a TRAIN EstimatorSpec: `optimizer.minimize(loss, var_list=
    trainable_variables)`, or `train_op_fn(loss)`.

    `trainable_variables=None` trains every trainable weight the loss depends
    on. `update_ops` that are train ops are grouped in; anything else (TF's
    batch-norm update ops) is accepted and not needed: layers update their
    statistics in the forward pass.
    """
    del head_name, loss_reduction
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(f"update_ops should be a list or a tuple. Given type: {type(update_ops).__name__}.")
    if optimizer is not None:
        if train_op_fn is not None:
            raise ValueError("train_op_fn and optimizer cannot both be set.")
        validate_v2_optimizer(optimizer)
        if trainable_variables is not None and not isinstance(trainable_variables, (list, tuple)):
            raise ValueError(
                "trainable_variables should be a list or a tuple. Given type: "
                f"{type(trainable_variables).__name__}."
            )
        train_op = optimizer.minimize(regularized_training_loss, var_list=trainable_variables)
    elif train_op_fn is not None:
        train_op = train_op_fn(regularized_training_loss)
    else:
        raise ValueError("train_op_fn and optimizer cannot both be None.")
    if update_ops:
        extra = [op for op in update_ops if isinstance(op, TrainOp)]
        if extra and isinstance(train_op, TrainOp):
            train_op = group(train_op, *extra)
    return train_op


def create_estimator_spec_summary(regularized_training_loss: torch.Tensor,
                                  regularization_losses: Any = None,
                                  summary_key_fn: Any = None) -> None:
    """Records the `loss` (and `regularization_loss`) scalar summaries of a TRAIN step."""

    key = summary_key_fn(MetricKeys.LOSS) if summary_key_fn else MetricKeys.LOSS
    _record(key, regularized_training_loss)
    if regularization_losses is not None:
        reg_key = (summary_key_fn(MetricKeys.LOSS_REGULARIZATION) if summary_key_fn
                   else MetricKeys.LOSS_REGULARIZATION)
        _record(reg_key, add_n(regularization_losses))


def add_n(values: Any) -> torch.Tensor:
    """The sum of a list of scalar losses."""
    values = list(values)
    if not values:
        return torch.zeros(())
    total = torch.as_tensor(values[0]).float()
    for value in values[1:]:
        total = total + torch.as_tensor(value).float().to(total.device)
    return total


class Head:
    """Interface for the head/top of a model (TF's `tf.estimator.Head`).

    Subclasses give `name`, `logits_dimension`, `loss_reduction`, and
    `loss(labels, logits, features=None, mode=None, regularization_losses=None)`,
    `predictions(logits, keys=None)`, `metrics(regularization_losses=None)`,
    `update_metrics(eval_metrics, features, logits, labels, mode=None, regularization_losses=None)`;
    `create_estimator_spec(...)` combines them into the `EstimatorSpec` of a mode.

    A named head's metric objects are named as their keys (`average_loss/<head name>`, where
    TF names most of them without the suffix): inside a `model_fn` objects are reused by
    name, so the metrics of two heads of a `MultiHead` must not share one.
    """

    _name: str | None = None

    @property
    def name(self) -> str | None:
        """The name of this head; when set, metric and summary keys end with `/<name>`."""
        return self._name

    @property
    def logits_dimension(self) -> int:
        """Size of the last dimension of the logits `Tensor` the head expects."""
        raise TypeError(f"{type(self).__name__} does not define logits_dimension")

    @property
    def loss_reduction(self) -> str:
        """How the training loss is reduced over the batch (a `tf.losses.Reduction`)."""
        return self._loss_reduction

    def _summary_key(self, key: str) -> str:
        return key if not self._name else f"{key}/{self._name}"

    # --------------------------------------------------------------------- parts
    def _loss_parts(self, logits: torch.Tensor, labels: Any, features: Any) -> LossParts:
        """Processed labels, the unweighted per-example loss, and the weights."""
        raise TypeError(f"{type(self).__name__} does not define its loss")

    def loss(self, labels: Any, logits: Any, features: Any = None, mode: str | None = None,
             regularization_losses: Any = None) -> torch.Tensor:
        """Returns the regularized training loss: the weighted per-example loss reduced by
        `loss_reduction`, plus the sum of `regularization_losses`."""
        del mode
        logits = check_logits_final_dim(logits, self.logits_dimension)
        parts = self._loss_parts(logits, labels, features)
        return self._training_loss(parts, regularization_losses)

    def _fused_training_loss(self, logits: torch.Tensor, labels: Any, features: Any) -> torch.Tensor | None:
        """The TRAIN loss in one fused torch op (the loss function with its own reduction) when
        nothing needs the per-example losses: no `loss_fn`, no weight column, a SUM or
        SUM_OVER_BATCH_SIZE reduction and labels already in the shape and dtype the loss takes.
        Returns None otherwise, and the general path (`_loss_parts`, `_training_loss`) runs: it
        is also the one that explains bad labels. Equal to the general path up to float
        rounding (one reduction instead of a per-example loss, a sum and a division)."""
        return None

    def _training_loss(self, parts: LossParts, regularization_losses: Any) -> torch.Tensor:
        loss = compute_weighted_loss(parts.unweighted_loss, parts.weights, self.loss_reduction)
        if regularization_losses is not None:
            loss = loss + add_n(regularization_losses).to(loss.device)
        return loss

    def predictions(self, logits: Any, keys: Any = None) -> dict:
        """Returns a `dict` of predictions from `logits`, keyed by prediction name (`keys`: the
        prediction keys to make, None for all of the head's). Abstract, as TF's: each head
        defines it (TF raises NotImplementedError for a subclass that does not)."""
        raise NotImplementedError("Calling an abstract method.")

    def metrics(self, regularization_losses: Any = None) -> dict:
        """Returns a `dict` of the head's eval metric objects (Keras metrics) keyed by name,
        with a regularization loss mean when `regularization_losses` is not None. Abstract,
        as TF's: each head defines it (TF raises NotImplementedError for a subclass that does
        not)."""
        raise NotImplementedError("Calling an abstract method.")

    def update_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                       mode: str | None = None, regularization_losses: Any = None) -> dict:
        """Updates the metrics of `metrics()` with one batch; returns `eval_metrics`.

        `mode` (an Estimator `ModeKeys`) is TF's interface argument: the metrics do not depend
        on it (TF's concrete heads, and ours, take no `mode`)."""
        del mode
        return self._update_batch_metrics(eval_metrics, features, logits, labels, regularization_losses)

    def _update_batch_metrics(self, eval_metrics: dict, features: Any, logits: Any, labels: Any,
                              regularization_losses: Any) -> dict:
        logits = check_logits_final_dim(logits, self.logits_dimension)
        parts = self._loss_parts(logits, labels, features)
        return self._update_metrics(eval_metrics, parts, logits, labels, regularization_losses)

    def _update_metrics(self, eval_metrics: dict, parts: LossParts, logits: torch.Tensor,
                        labels: Any, regularization_losses: Any) -> dict:
        raise TypeError(f"{type(self).__name__} does not define its metrics")

    def _update_regularization_metric(self, eval_metrics: dict, regularization_losses: Any) -> None:
        if regularization_losses is not None:
            key = self._summary_key(MetricKeys.LOSS_REGULARIZATION)
            eval_metrics[key].update_state(values=add_n(regularization_losses))

    def _mean_metric(self, key: str) -> Any:
        return Mean(name=key)

    def _regularization_metric(self, eval_metrics: dict, regularization_losses: Any) -> None:
        if regularization_losses is not None:
            key = self._summary_key(MetricKeys.LOSS_REGULARIZATION)
            eval_metrics[key] = self._mean_metric(key)

    # --------------------------------------------------------------------- spec
    def _export_outputs(self, predictions: dict) -> dict:
        raise TypeError(f"{type(self).__name__} does not define its export outputs")

    def _step_predictions(self, logits: torch.Tensor) -> dict:
        """The predictions a TRAIN or EVAL spec carries: the tensor-valued ones."""
        return {k: v for k, v in self.predictions(logits).items() if isinstance(v, torch.Tensor)}

    def create_estimator_spec(self, features: Any, mode: str, logits: Any, labels: Any = None,
                              optimizer: Any = None, trainable_variables: Any = None,
                              train_op_fn: Any = None, update_ops: Any = None,
                              regularization_losses: Any = None) -> EstimatorSpec:
        """Returns an `EstimatorSpec` for `mode`.

        PREDICT: all predictions and the export outputs (`serving_default`,
        `classification` / `regression`, `predict`). EVAL: the loss and the
        updated eval metrics. TRAIN: the loss and the train op, from
        `optimizer.minimize(loss, var_list=trainable_variables)` or
        `train_op_fn(loss)`. TRAIN and EVAL specs carry the tensor-valued
        predictions (not the string `classes`).
        """
        check_mode(mode)
        logits = check_logits_final_dim(logits, self.logits_dimension)
        if mode == ModeKeys.PREDICT:
            predictions = self.predictions(logits)
            return EstimatorSpec(mode=mode, predictions=predictions,
                                 export_outputs=self._export_outputs(predictions))
        if mode == ModeKeys.TRAIN:
            loss = self._fused_training_loss(logits, labels, features)
            if loss is None:
                loss = self._training_loss(self._loss_parts(logits, labels, features), regularization_losses)
            elif regularization_losses is not None:
                loss = loss + add_n(regularization_losses).to(loss.device)
        else:
            parts = self._loss_parts(logits, labels, features)
            loss = self._training_loss(parts, regularization_losses)
        predictions = LazyPredictions(lambda: self._step_predictions(logits))  # computed when read
        if mode == ModeKeys.EVAL:
            eval_metrics = self.metrics(regularization_losses=regularization_losses)
            self._update_metrics(eval_metrics, parts, logits, labels, regularization_losses)
            return EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                 eval_metric_ops=eval_metrics)
        train_op = create_estimator_spec_train_op(
            self._name, optimizer=optimizer, trainable_variables=trainable_variables,
            train_op_fn=train_op_fn, update_ops=update_ops, regularized_training_loss=loss,
            loss_reduction=self.loss_reduction,
        )
        create_estimator_spec_summary(loss, regularization_losses, self._summary_key)
        return EstimatorSpec(mode=mode, predictions=predictions, loss=loss, train_op=train_op)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self._name!r} logits_dimension={self.logits_dimension}>"
