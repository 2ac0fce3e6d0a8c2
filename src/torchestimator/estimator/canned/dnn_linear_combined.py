"""Wide & deep: `DNNLinearCombinedClassifier`, `DNNLinearCombinedRegressor`,
`DNNLinearCombinedEstimator` (TF 2.15).

logits = DNN logits (over `dnn_feature_columns`) + linear logits (over
`linear_feature_columns`). One training step back-propagates the loss once;
the DNN optimizer (default Adagrad at 0.001) updates only the DNN's weights
and the linear optimizer (default Ftrl at min(0.005, 1/sqrt(number of linear
columns))) only the linear model's, as TF groups the two train ops.
"""

from __future__ import annotations

import math
from typing import Any

from torchestimator._engine.train_op import group
from torchestimator.estimator.canned import _validation, optimizers
from torchestimator.estimator.canned.dnn import _relu, dnn_logits, zero_fraction_summary
from torchestimator.estimator.canned.linear import check_sparse_combiner, linear_logits
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.head import RegressionHead, binary_or_multi_class_head
from torchestimator.estimator.head.base_head import Head
from torchestimator.estimator.mode_keys import ModeKeys

# The default learning rates are a historical artifact of the initial implementation.
_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def linear_learning_rate(num_linear_feature_columns: int) -> float:
    """The linear part's default learning rate: min(0.005, 1/sqrt(number of linear columns))."""
    return min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(num_linear_feature_columns))


def dnn_linear_combined_model_fn_v2(
    features: Any, labels: Any, mode: str, head: Head, linear_feature_columns: tuple = (),
    linear_optimizer: Any = "Ftrl", dnn_feature_columns: tuple = (), dnn_optimizer: Any = "Adagrad",
    dnn_hidden_units: tuple = (), dnn_activation_fn: Any = None, dnn_dropout: float | None = None,
    config: Any = None, batch_norm: bool = False, linear_sparse_combiner: str = "sum",
    defaults: optimizers.OptimizerDefaults = optimizers.TF2,
) -> Any:
    """The wide & deep model_fn: the sum of both parts' logits; a train op grouping both optimizers."""
    del config
    _validation.validate_features(features)
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    resolve = defaults.resolve
    logits = None
    dnn_vars: list = []
    linear_vars: list = []
    dnn_opt = linear_opt = None
    if dnn_feature_columns:
        if not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is specified.")
        if mode == ModeKeys.TRAIN:
            dnn_opt = optimizers.optimizer_for_model_fn(
                "dnn", lambda: resolve(dnn_optimizer, learning_rate=_DNN_LEARNING_RATE))
        logits, dnn_vars = dnn_logits(features, mode, head.logits_dimension, dnn_hidden_units,
                                      dnn_feature_columns, dnn_activation_fn, dnn_dropout, batch_norm)
    if linear_feature_columns:
        if mode == ModeKeys.TRAIN:
            rate = linear_learning_rate(len(linear_feature_columns))
            linear_opt = optimizers.optimizer_for_model_fn(
                "linear", lambda: resolve(linear_optimizer, learning_rate=rate))
        linear, linear_vars = linear_logits(features, head.logits_dimension, linear_feature_columns,
                                            linear_sparse_combiner)
        zero_fraction_summary(linear, "linear")
        logits = linear if logits is None else logits + linear

    def _train_op_fn(loss: Any) -> Any:
        ops = []
        if dnn_opt is not None:
            ops.append(dnn_opt.minimize(loss, var_list=dnn_vars))
        if linear_opt is not None:
            ops.append(linear_opt.minimize(loss, var_list=linear_vars))
        return group(*ops)

    return head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                      train_op_fn=_train_op_fn, logits=logits)


class DNNLinearCombinedEstimator(Estimator):
    """An estimator for TensorFlow Linear and DNN joined models with custom head.

    Note: This estimator is also known as wide-n-deep.

    Args:
      head: A `Head` instance.
      model_dir: Directory to save model parameters and summaries.
      linear_feature_columns: Feature columns of the linear part (categorical
        and dense columns).
      linear_optimizer: A string, an optimizer instance or a callable for the
        linear part. Defaults to Ftrl at min(0.005, 1/sqrt(#linear columns)).
      dnn_feature_columns: Dense feature columns of the deep part.
      dnn_optimizer: A string, an optimizer instance or a callable for the deep
        part. Defaults to Adagrad at 0.001.
      dnn_hidden_units: List of hidden units per layer (required with DNN columns).
      dnn_activation_fn: Activation function applied to each layer (default relu).
      dnn_dropout: When not `None`, the probability we will drop out a given coordinate.
      config: `RunConfig` object.
      batch_norm: Whether to use batch normalization after each hidden layer.
      linear_sparse_combiner: 'mean', 'sqrtn' or 'sum' (default).

    Raises:
      ValueError: If both linear_feature_columns and dnn_features_columns are
        empty at the same time, or dnn_hidden_units is missing with DNN columns.
    """

    _optimizers = optimizers.TF2  # tf.compat.v1.estimator's classes pass TF1's

    def __init__(self, head: Head, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Any = _relu(), dnn_dropout: float | None = None, config: Any = None,
                 batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        if not isinstance(head, Head):
            raise ValueError(f"{type(self).__name__}: head must be a tf.estimator Head; given {head!r}.")
        self._init_combined(head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                            dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, config,
                            None, batch_norm, linear_sparse_combiner)

    def _init_combined(self, head: Head, model_dir: Any, linear_feature_columns: Any, linear_optimizer: Any,
                       dnn_feature_columns: Any, dnn_optimizer: Any, dnn_hidden_units: Any,
                       dnn_activation_fn: Any, dnn_dropout: Any, config: Any, warm_start_from: Any,
                       batch_norm: bool, linear_sparse_combiner: str) -> None:
        owner = type(self).__name__
        self._head = head
        linear_columns = _validation.linear_columns(linear_feature_columns, "linear_feature_columns",
                                                    owner, required=False)
        dnn_columns = _validation.dense_columns(dnn_feature_columns, "dnn_feature_columns", owner,
                                                required=False)
        if not linear_columns and not dnn_columns:
            raise ValueError(f"{owner}: Either linear_feature_columns or dnn_feature_columns must be defined.")
        hidden: tuple = ()
        if dnn_columns:
            if not dnn_hidden_units:
                raise ValueError(
                    f"{owner}: dnn_hidden_units must be defined when dnn_feature_columns is "
                    f"specified. Given: {dnn_hidden_units!r}"
                )
            hidden = _validation.hidden_units(dnn_hidden_units, "dnn_hidden_units", owner)
        activation_fn = _validation.activation(dnn_activation_fn, "dnn_activation_fn", owner)
        dropout = _validation.dropout(dnn_dropout, "dnn_dropout", owner)
        combiner = check_sparse_combiner(linear_sparse_combiner, "linear_sparse_combiner", owner)
        defaults = self._optimizers
        optimizers.check_optimizer_argument(linear_optimizer, "linear_optimizer", owner, defaults)
        optimizers.check_optimizer_argument(dnn_optimizer, "dnn_optimizer", owner, defaults)

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return dnn_linear_combined_model_fn_v2(
                features, labels, mode, head, linear_columns, linear_optimizer, dnn_columns,
                dnn_optimizer, hidden, activation_fn, dropout, config, bool(batch_norm), combiner, defaults,
            )

        Estimator.__init__(self, model_fn=_model_fn, model_dir=model_dir, config=config,
                           warm_start_from=warm_start_from)


class DNNLinearCombinedClassifier(DNNLinearCombinedEstimator):
    """An estimator for TensorFlow Linear and DNN joined classification models.

    Note: This estimator is also known as wide-n-deep.

    Example:

        estimator = tf.estimator.DNNLinearCombinedClassifier(
            # wide settings
            linear_feature_columns=[categorical_feature_a_x_categorical_feature_b],
            linear_optimizer=tf.keras.optimizers.Ftrl(...),
            # deep settings
            dnn_feature_columns=[categorical_feature_a_emb, categorical_feature_b_emb,
                                 numeric_feature],
            dnn_hidden_units=[1000, 500, 100],
            dnn_optimizer=tf.keras.optimizers.Adagrad(...))

    Loss is calculated by using softmax cross entropy (sigmoid for 2 classes).

    Args:
      model_dir: Directory to save model parameters and summaries.
      linear_feature_columns: Feature columns of the linear part.
      linear_optimizer: Optimizer of the linear part; defaults to Ftrl at
        min(0.005, 1/sqrt(#linear columns)).
      dnn_feature_columns: Dense feature columns of the deep part.
      dnn_optimizer: Optimizer of the deep part; defaults to Adagrad at 0.001.
      dnn_hidden_units: List of hidden units per layer.
      dnn_activation_fn: Activation function applied to each layer (default relu).
      dnn_dropout: When not `None`, the probability we will drop out a given coordinate.
      n_classes: Number of label classes. Defaults to 2. Must be > 1.
      weight_column: A string or a `NumericColumn` defining the example weights.
      label_vocabulary: A list of strings represents possible label values.
      config: `RunConfig` object.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
      batch_norm: Whether to use batch normalization after each hidden layer.
      linear_sparse_combiner: 'mean', 'sqrtn' or 'sum' (default).
    """

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Any = _relu(), dnn_dropout: float | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None, config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = "sum_over_batch_size",
                 batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        head = binary_or_multi_class_head(n_classes, weight_column=weight_column,
                                          label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
        self._init_combined(head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                            dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, config,
                            warm_start_from, batch_norm, linear_sparse_combiner)


class DNNLinearCombinedRegressor(DNNLinearCombinedEstimator):
    """An estimator for TensorFlow Linear and DNN joined models for regression.

    Note: This estimator is also known as wide-n-deep. Loss is mean squared error.

    Args:
      model_dir: Directory to save model parameters and summaries.
      linear_feature_columns: Feature columns of the linear part.
      linear_optimizer: Optimizer of the linear part; defaults to Ftrl at
        min(0.005, 1/sqrt(#linear columns)).
      dnn_feature_columns: Dense feature columns of the deep part.
      dnn_optimizer: Optimizer of the deep part; defaults to Adagrad at 0.001.
      dnn_hidden_units: List of hidden units per layer.
      dnn_activation_fn: Activation function applied to each layer (default relu).
      dnn_dropout: When not `None`, the probability we will drop out a given coordinate.
      label_dimension: Number of regression targets per example.
      weight_column: A string or a `NumericColumn` defining the example weights.
      config: `RunConfig` object.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
      batch_norm: Whether to use batch normalization after each hidden layer.
      linear_sparse_combiner: 'mean', 'sqrtn' or 'sum' (default).
    """

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Any = _relu(), dnn_dropout: float | None = None,
                 label_dimension: int = 1, weight_column: Any = None, config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = "sum_over_batch_size",
                 batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        label_dimension = _validation.label_dimension(label_dimension, type(self).__name__)
        head = RegressionHead(label_dimension=label_dimension, weight_column=weight_column,
                              loss_reduction=loss_reduction)
        self._init_combined(head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                            dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, config,
                            warm_start_from, batch_norm, linear_sparse_combiner)
