"""Linear estimators: `LinearClassifier`, `LinearRegressor`, `LinearEstimator` (TF 2.15).

logits = the feature columns' `LinearModel` (one weight per bucket of a
categorical column, combined by `sparse_combiner` over several ids; a weight
matrix per dense column) + bias, all zero at first. Checkpoint variables:
`linear/linear_model/<column>/weights`, `linear/linear_model/bias_weights`.
Default optimizer: Ftrl at 0.2 (`optimizer=None`: min(0.2, 1/sqrt(#columns))).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from torchestimator.estimator import _linear_sdca  # names read at call time (a circle)
from torchestimator.estimator._session import LazySummary
from torchestimator.estimator.canned import _validation, optimizers
from torchestimator.estimator.canned._trainable import compute_fraction_of_zero, trainable_variables
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.head import RegressionHead, binary_or_multi_class_head
from torchestimator.estimator.head.base_head import Head
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.keras.feature_column._linear_model import LinearModel
from torchestimator.summary._summary import _record

# The default learning rate of 0.2 is a historical artifact of the initial
# implementation, but seems a reasonable choice.
_LEARNING_RATE = 0.2
_COMBINERS = ("mean", "sqrtn", "sum")


def default_optimizer(feature_columns: tuple,
                      defaults: optimizers.OptimizerDefaults = optimizers.TF2) -> Any:
    """Ftrl (`defaults.ftrl`: Keras legacy, or TF1's `FtrlOptimizer`) at
    min(0.2, 1/sqrt(number of columns)): the optimizer when `optimizer=None`."""
    return defaults.ftrl(learning_rate=min(_LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns))))


def linear_logits(features: Any, units: int, feature_columns: tuple, sparse_combiner: str = "sum",
                  name: str = "linear/linear_model") -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Builds (once per Estimator) and runs the `LinearModel`; returns `(logits, its variables)`
    and records the `bias` and `fraction_of_zero_weights` summaries."""
    model = LinearModel(feature_columns=feature_columns, units=units, sparse_combiner=sparse_combiner,
                        name=name)
    logits = model(features)
    bias = model.bias
    variables = trainable_variables([model])  # one list across steps (see its docstring)
    if units == 1:
        _record("bias", bias[0])
    _record("fraction_of_zero_weights",  # computed only when the summary is written
            LazySummary(lambda: compute_fraction_of_zero([v for v in variables if v is not bias])))
    return logits, variables


def linear_model_fn_v2(features: Any, labels: Any, mode: str, head: Head, feature_columns: tuple,
                       optimizer: Any, config: Any = None, sparse_combiner: str = "sum",
                       defaults: optimizers.OptimizerDefaults = optimizers.TF2) -> Any:
    """The linear model_fn: logits from `linear_logits`, spec from `head`."""
    del config
    _validation.validate_features(features)
    logits, trainable_variables = linear_logits(features, head.logits_dimension, feature_columns,
                                                sparse_combiner)
    train_optimizer = None
    if mode == ModeKeys.TRAIN:
        def resolve() -> Any:
            return defaults.resolve(optimizer or default_optimizer(feature_columns, defaults), _LEARNING_RATE)

        train_optimizer = optimizers.optimizer_for_model_fn("linear", resolve)
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, optimizer=train_optimizer, logits=logits,
        trainable_variables=trainable_variables,
    )


def check_sparse_combiner(sparse_combiner: Any, argument: str, owner: str) -> str:
    """Raises ValueError unless the combiner is 'mean', 'sqrtn' or 'sum'."""
    if sparse_combiner not in _COMBINERS:
        raise ValueError(f"{owner}: {argument} must be one of {list(_COMBINERS)}; given {sparse_combiner!r}.")
    return sparse_combiner


class LinearEstimator(Estimator):
    """An estimator for TensorFlow linear models with user-specified head.

    Args:
      head: A `Head` instance.
      feature_columns: An iterable of feature columns (categorical columns —
        vocabulary, hash bucket, identity, crossed, bucketized, weighted — and
        dense columns).
      model_dir: Directory to save model parameters and summaries.
      optimizer: A string ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), a
        `tf.keras.optimizers.*` instance or a callable. Defaults to Ftrl (0.2).
      config: `RunConfig` object.
      sparse_combiner: How several ids of one categorical column combine:
        'mean', 'sqrtn' or 'sum'.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
    """

    _optimizers = optimizers.TF2  # tf.compat.v1.estimator's classes pass TF1's

    def __init__(self, head: Head, feature_columns: Any, model_dir: str | None = None,
                 optimizer: Any = "Ftrl", config: Any = None, sparse_combiner: str = "sum",
                 warm_start_from: Any = None):
        owner = type(self).__name__
        if not isinstance(head, Head):
            raise ValueError(f"{owner}: head must be a tf.estimator Head; given {head!r}.")
        self._head = head
        self._init_linear(head, feature_columns, model_dir, optimizer, config, sparse_combiner,
                          warm_start_from)

    def _init_linear(self, head: Head, feature_columns: Any, model_dir: Any, optimizer: Any, config: Any,
                     sparse_combiner: str, warm_start_from: Any) -> None:
        owner = type(self).__name__
        feature_columns = _validation.linear_columns(feature_columns, "feature_columns", owner)
        sparse_combiner = check_sparse_combiner(sparse_combiner, "sparse_combiner", owner)
        defaults = self._optimizers
        if not isinstance(optimizer, _linear_sdca.LinearSDCA):
            optimizers.check_optimizer_argument(optimizer, "optimizer", owner, defaults)

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            if isinstance(optimizer, _linear_sdca.LinearSDCA):  # tf.estimator.experimental.LinearSDCA
                return _linear_sdca.sdca_model_fn(features, labels, mode, head, feature_columns,
                                                  optimizer, sparse_combiner)
            return linear_model_fn_v2(features, labels, mode, head, feature_columns, optimizer, config,
                                      sparse_combiner, defaults)

        Estimator.__init__(self, model_fn=_model_fn, model_dir=model_dir, config=config,
                           warm_start_from=warm_start_from)


class LinearClassifier(LinearEstimator):
    """Linear classifier model.

    Train a linear model to classify instances into one of multiple possible
    classes. When number of possible classes is 2, this is binary classification.

    Args:
      feature_columns: An iterable containing all the feature columns used by
        the model (categorical and dense columns).
      model_dir: Directory to save model parameters and summaries.
      n_classes: number of label classes. Default is binary classification.
      weight_column: A string or a `NumericColumn` defining the example weights.
      label_vocabulary: A list of strings represents possible label values.
      optimizer: A string, a `tf.keras.optimizers.*` instance or a callable.
        Defaults to Ftrl at 0.2.
      config: `RunConfig` object.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
      sparse_combiner: 'mean', 'sqrtn' or 'sum' (default): how several ids of
        a categorical column combine.

    Raises:
      ValueError: if n_classes < 2.
    """

    def __init__(self, feature_columns: Any, model_dir: str | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None, optimizer: Any = "Ftrl",
                 config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = "sum_over_batch_size", sparse_combiner: str = "sum"):
        head = binary_or_multi_class_head(n_classes, weight_column=weight_column,
                                          label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
        self._head = head
        self._init_linear(head, feature_columns, model_dir, optimizer, config, sparse_combiner,
                          warm_start_from)


class LinearRegressor(LinearEstimator):
    """An estimator for TensorFlow Linear regression problems.

    Train a linear regression model to predict label value given observation
    of feature values. Loss is calculated by using mean squared error.

    Args:
      feature_columns: An iterable containing all the feature columns used by the model.
      model_dir: Directory to save model parameters and summaries.
      label_dimension: Number of regression targets per example.
      weight_column: A string or a `NumericColumn` defining the example weights.
      optimizer: A string, a `tf.keras.optimizers.*` instance or a callable.
        Defaults to Ftrl at 0.2.
      config: `RunConfig` object.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
      sparse_combiner: 'mean', 'sqrtn' or 'sum' (default).
    """

    def __init__(self, feature_columns: Any, model_dir: str | None = None, label_dimension: int = 1,
                 weight_column: Any = None, optimizer: Any = "Ftrl", config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = "sum_over_batch_size",
                 sparse_combiner: str = "sum"):
        label_dimension = _validation.label_dimension(label_dimension, type(self).__name__)
        head = RegressionHead(label_dimension=label_dimension, weight_column=weight_column,
                              loss_reduction=loss_reduction)
        self._head = head
        self._init_linear(head, feature_columns, model_dir, optimizer, config, sparse_combiner,
                          warm_start_from)
