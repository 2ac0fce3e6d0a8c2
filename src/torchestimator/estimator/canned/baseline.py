"""Baseline estimators: a model that learns only a bias per logit (it ignores the features),
to compare other models against. TF 2.15's `BaselineClassifier`, `BaselineRegressor`,
`BaselineEstimator` (checkpoint variable `baseline/bias`, Ftrl at 0.3)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.estimator.canned import _validation, optimizers
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.head import RegressionHead, binary_or_multi_class_head
from torchestimator.estimator.head.base_head import Head
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.summary._summary import _record

# The default learning rate of 0.3 is a historical artifact of the initial
# implementation, but seems a reasonable choice.
_LEARNING_RATE = 0.3


class BaselineBias(Layer):
    """The baseline's only weight: a bias vector `bias` [units], zeros at first, broadcast to the batch.

    Called with any tensor whose first dimension is the batch; returns [batch, units].
    """

    def __init__(self, units: int, name: str = "baseline", **kwargs: Any):
        super().__init__(name=name, **kwargs)
        self.units = int(units)

    def build(self, input_shape: Any = None) -> None:
        """Creates `bias` [units], zeros."""
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")
        self.built = True

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns the bias for each example: [batch, units]."""
        return self.bias.unsqueeze(0).expand(inputs.shape[0], self.units)

    def get_config(self) -> dict:
        """The layer config with `units`."""
        config = super().get_config()
        config["units"] = self.units
        return config


def baseline_model_fn(features: Any, labels: Any, mode: str, head: Head, optimizer: Any,
                      weight_column: Any = None,
                      defaults: optimizers.OptimizerDefaults = optimizers.TF2) -> Any:
    """The baseline's model_fn: logits = the learned bias, for every example."""
    _validation.validate_features(features)
    batch = _validation.batch_size_of(features, weight_column)
    device = next((v.device for v in features.values() if isinstance(v, torch.Tensor)), None)
    layer = BaselineBias(head.logits_dimension, name="baseline")
    logits = layer(torch.zeros((batch, 1), device=device))
    if head.logits_dimension == 1:
        _record("bias", layer.bias[0])
    train_optimizer = None
    if mode == ModeKeys.TRAIN:
        train_optimizer = optimizers.optimizer_for_model_fn(
            "baseline", lambda: defaults.resolve(optimizer, _LEARNING_RATE))
    return head.create_estimator_spec(
        features=features, mode=mode, logits=logits, labels=labels, optimizer=train_optimizer,
        trainable_variables=[layer.bias],
    )


class BaselineEstimator(Estimator):
    """An estimator that can establish a simple baseline, for any `head`.

    The model ignores feature values and learns the bias of each logit: the
    label mean for a regression head, the class prior for a classifier.

    Args:
      head: A `Head` instance (e.g. `tf.estimator.MultiLabelHead`).
      model_dir: Directory to save model parameters and summaries.
      optimizer: A string ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), a
        `tf.keras.optimizers.*` instance, or a callable returning one. Defaults
        to Ftrl at learning rate 0.3.
      config: `RunConfig` object.
    """

    _optimizers = optimizers.TF2  # tf.compat.v1.estimator's classes pass TF1's

    def __init__(self, head: Head, model_dir: str | None = None, optimizer: Any = "Ftrl",
                 config: Any = None):
        if not isinstance(head, Head):
            raise ValueError(f"BaselineEstimator: head must be a tf.estimator Head; given {head!r}.")
        optimizers.check_optimizer_argument(optimizer, "optimizer", type(self).__name__)
        self._head = head
        defaults = self._optimizers

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return baseline_model_fn(features, labels, mode, head, optimizer, defaults=defaults)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineClassifier(Estimator):
    """A classifier that can establish a simple baseline.

    This classifier ignores feature values and will learn to predict the
    average value of each label. For single-label problems, this will predict
    the probability distribution of the classes as seen in the labels. For
    multi-label problems, this will predict the fraction of examples that are
    positive for each class.

    Args:
      model_dir: Directory to save model parameters and summaries.
      n_classes: number of label classes. Default is binary classification.
        It must be greater than 1.
      weight_column: A string or a `NumericColumn` defining the example weights.
      label_vocabulary: Optional list of strings with size `[n_classes]`: the
        class names; labels are then strings from it.
      optimizer: A string, a `tf.keras.optimizers.*` instance or a callable;
        defaults to Ftrl at learning rate 0.3.
      config: `RunConfig` object.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.

    Raises:
      ValueError: If `n_classes` < 2.
    """

    _optimizers = optimizers.TF2  # tf.compat.v1.estimator's classes pass TF1's

    def __init__(self, model_dir: str | None = None, n_classes: int = 2, weight_column: Any = None,
                 label_vocabulary: Any = None, optimizer: Any = "Ftrl", config: Any = None,
                 loss_reduction: str = "sum_over_batch_size"):
        head = binary_or_multi_class_head(n_classes, weight_column=weight_column,
                                          label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
        optimizers.check_optimizer_argument(optimizer, "optimizer", type(self).__name__)
        defaults = self._optimizers

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return baseline_model_fn(features, labels, mode, head, optimizer, weight_column, defaults)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineRegressor(Estimator):
    """A regressor that can establish a simple baseline.

    This regressor ignores feature values and will learn to predict the average
    value of each label.

    Args:
      model_dir: Directory to save model parameters and summaries.
      label_dimension: Number of regression targets per example.
      weight_column: A string or a `NumericColumn` defining the example weights.
      optimizer: A string, a `tf.keras.optimizers.*` instance or a callable;
        defaults to Ftrl at learning rate 0.3.
      config: `RunConfig` object.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
    """

    _optimizers = optimizers.TF2  # tf.compat.v1.estimator's classes pass TF1's

    def __init__(self, model_dir: str | None = None, label_dimension: int = 1, weight_column: Any = None,
                 optimizer: Any = "Ftrl", config: Any = None,
                 loss_reduction: str = "sum_over_batch_size"):
        label_dimension = _validation.label_dimension(label_dimension, type(self).__name__)
        head = RegressionHead(label_dimension=label_dimension, weight_column=weight_column,
                              loss_reduction=loss_reduction)
        optimizers.check_optimizer_argument(optimizer, "optimizer", type(self).__name__)
        defaults = self._optimizers

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return baseline_model_fn(features, labels, mode, head, optimizer, weight_column, defaults)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)
