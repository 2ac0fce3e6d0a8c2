"""Deep neural network estimators: `DNNClassifier`, `DNNRegressor`, `DNNEstimator` (TF 2.15).

The network: `DenseFeatures(feature_columns)` (columns concatenated in name
order) -> for each hidden layer Dense(units, activation_fn, glorot_uniform) ->
Dropout (training only) -> BatchNormalization(momentum=0.999) when
`batch_norm` -> logits Dense(logits_dimension). Layers are named as TF's
checkpoint variables: `dnn/hiddenlayer_<i>`, `dnn/hiddenlayer_<i>/batchnorm_<i>`,
`dnn/logits`, and the input layer `dnn/input_from_feature_columns/input_layer`.
Default optimizer: Adagrad at 0.001 (the Keras default; TF1's is 0.05).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.nn_ops import zero_fraction
from torchestimator.estimator._session import LazySummary
from torchestimator.estimator.canned import _validation, optimizers
from torchestimator.estimator.canned._trainable import trainable_variables
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.head import RegressionHead, binary_or_multi_class_head
from torchestimator.estimator.head.base_head import Head
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.keras import activations, layers
from torchestimator.summary._summary import _record


def zero_fraction_summary(value: torch.Tensor, tag: str) -> None:
    """Records the `<tag>/fraction_of_zero_values` scalar summary of a layer's output (computed
    only when a hook reads it, e.g. every `save_summary_steps`)."""
    _record(f"{tag}/fraction_of_zero_values", LazySummary(zero_fraction, value.detach()))


def dnn_logits(features: Any, mode: str, units: int, hidden_units: tuple, feature_columns: tuple,
               activation_fn: Any, dropout: float | None, batch_norm: bool,
               scope: str = "dnn") -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Builds (once per Estimator) and runs the DNN; returns `(logits, trainable variables)`."""

    training = mode == ModeKeys.TRAIN
    input_layer = layers.DenseFeatures(feature_columns=feature_columns,
                                       name=f"{scope}/input_from_feature_columns/input_layer")
    used = [input_layer]
    net = input_layer(features)
    for layer_id, num_units in enumerate(hidden_units):
        name = f"{scope}/hiddenlayer_{layer_id}"
        dense = layers.Dense(units=num_units, activation=activation_fn,
                             kernel_initializer="glorot_uniform", name=name)
        used.append(dense)
        net = dense(net)
        if dropout is not None and training:
            net = layers.Dropout(rate=dropout)(net, training=True)
        if batch_norm:
            bn = layers.BatchNormalization(momentum=0.999, trainable=True,
                                           name=f"{name}/batchnorm_{layer_id}")
            used.append(bn)
            net = bn(net, training=training)
        zero_fraction_summary(net, name)
    logits_layer = layers.Dense(units=units, activation=None, kernel_initializer="glorot_uniform",
                                name=f"{scope}/logits")
    used.append(logits_layer)
    logits = logits_layer(net)
    zero_fraction_summary(logits, f"{scope}/logits")
    return logits, trainable_variables(used)


def dnn_model_fn_v2(features: Any, labels: Any, mode: str, head: Head, hidden_units: tuple,
                    feature_columns: tuple, optimizer: Any = "Adagrad", activation_fn: Any = None,
                    dropout: float | None = None, config: Any = None, batch_norm: bool = False,
                    defaults: optimizers.OptimizerDefaults = optimizers.TF2) -> Any:
    """The DNN model_fn: logits from `dnn_logits`, spec from `head`; a string optimizer gets
    `defaults.dnn_learning_rate` (TF2: the optimizer's default; TF1: 0.05)."""
    del config
    _validation.validate_features(features)
    logits, trainable_variables = dnn_logits(
        features, mode, head.logits_dimension, hidden_units, feature_columns, activation_fn,
        dropout, batch_norm,
    )
    train_optimizer = None
    if mode == ModeKeys.TRAIN:
        train_optimizer = optimizers.optimizer_for_model_fn(
            "dnn", lambda: defaults.resolve(optimizer, defaults.dnn_learning_rate))
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, optimizer=train_optimizer, logits=logits,
        trainable_variables=trainable_variables,
    )


def _dnn_args(owner: str, hidden_units: Any, feature_columns: Any, activation_fn: Any,
              dropout: Any, optimizer: Any, defaults: optimizers.OptimizerDefaults) -> tuple:
    hidden_units = _validation.hidden_units(hidden_units, "hidden_units", owner)
    feature_columns = _validation.dense_columns(feature_columns, "feature_columns", owner)
    activation_fn = _validation.activation(activation_fn, "activation_fn", owner)
    dropout = _validation.dropout(dropout, "dropout", owner)
    optimizers.check_optimizer_argument(optimizer, "optimizer", owner, defaults)
    return hidden_units, feature_columns, activation_fn, dropout


def _relu() -> Any:
    return activations.relu


class DNNEstimator(Estimator):
    """An estimator for TensorFlow DNN models with user-specified head.

    Args:
      head: A `Head` instance (e.g. `tf.estimator.MultiLabelHead(n_classes=3)`).
      hidden_units: Iterable of number hidden units per layer, e.g. `[64, 32]`.
      feature_columns: An iterable of dense feature columns (numeric,
        bucketized, embedding, indicator).
      model_dir: Directory to save model parameters and summaries.
      optimizer: A string ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), a
        `tf.keras.optimizers.*` instance, or a callable returning one. Defaults
        to Adagrad (learning rate 0.001).
      activation_fn: Activation function applied to each layer (default relu).
      dropout: When not `None`, the probability we will drop out a given coordinate.
      config: `RunConfig` object.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
      batch_norm: Whether to use batch normalization after each hidden layer.
    """

    _optimizers = optimizers.TF2  # tf.compat.v1.estimator's classes pass TF1's

    def __init__(self, head: Head, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 optimizer: Any = "Adagrad", activation_fn: Any = _relu(), dropout: float | None = None,
                 config: Any = None, warm_start_from: Any = None, batch_norm: bool = False):
        owner = type(self).__name__
        if not isinstance(head, Head):
            raise ValueError(f"{owner}: head must be a tf.estimator Head; given {head!r}.")
        hidden_units, feature_columns, activation_fn, dropout = _dnn_args(
            owner, hidden_units, feature_columns, activation_fn, dropout, optimizer, self._optimizers)
        self._head = head
        defaults = self._optimizers

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return dnn_model_fn_v2(features, labels, mode, head, hidden_units, feature_columns,
                                   optimizer, activation_fn, dropout, config, bool(batch_norm), defaults)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNClassifier(DNNEstimator):
    """A classifier for TensorFlow DNN models.

    Example:

        classifier = tf.estimator.DNNClassifier(
            feature_columns=[tf.feature_column.numeric_column(k) for k in keys],
            hidden_units=[10, 10], n_classes=3)
        classifier.train(input_fn=train_input_fn, steps=2000)
        metrics = classifier.evaluate(input_fn=eval_input_fn)
        predictions = classifier.predict(input_fn=predict_input_fn)

    Loss is calculated by using softmax cross entropy (sigmoid for 2 classes).

    Args:
      hidden_units: Iterable of number hidden units per layer. All layers are
        fully connected. Ex. `[64, 32]` means first layer has 64 nodes and
        second one has 32.
      feature_columns: An iterable containing all the feature columns used by
        the model (dense columns).
      model_dir: Directory to save model parameters and summaries.
      n_classes: Number of label classes. Defaults to 2, namely binary
        classification. Must be > 1.
      weight_column: A string or a `NumericColumn` defining the example weights.
      label_vocabulary: A list of strings represents possible label values.
        If given, labels must be strings from it; else class ids in
        [0, n_classes) (for n_classes=2 also floats in [0, 1]).
      optimizer: A string ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), a
        `tf.keras.optimizers.*` instance or a callable. Defaults to Adagrad
        (learning rate 0.001, as TF 2.15).
      activation_fn: Activation function applied to each layer (default relu).
      dropout: When not `None`, the probability we will drop out a given coordinate.
      config: `RunConfig` object.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
      batch_norm: Whether to use batch normalization after each hidden layer.
    """

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 n_classes: int = 2, weight_column: Any = None, label_vocabulary: Any = None,
                 optimizer: Any = "Adagrad", activation_fn: Any = _relu(), dropout: float | None = None,
                 config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = "sum_over_batch_size", batch_norm: bool = False):
        head = binary_or_multi_class_head(n_classes, weight_column=weight_column,
                                          label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir=model_dir, optimizer=optimizer,
                         activation_fn=activation_fn, dropout=dropout, config=config,
                         warm_start_from=warm_start_from, batch_norm=batch_norm)


class DNNRegressor(DNNEstimator):
    """A regressor for TensorFlow DNN models.

    Loss is calculated by using mean squared error.

    Args:
      hidden_units: Iterable of number hidden units per layer, e.g. `[64, 32]`.
      feature_columns: An iterable of dense feature columns.
      model_dir: Directory to save model parameters and summaries.
      label_dimension: Number of regression targets per example.
      weight_column: A string or a `NumericColumn` defining the example weights.
      optimizer: A string, a `tf.keras.optimizers.*` instance or a callable.
        Defaults to Adagrad (learning rate 0.001).
      activation_fn: Activation function applied to each layer (default relu).
      dropout: When not `None`, the probability we will drop out a given coordinate.
      config: `RunConfig` object.
      warm_start_from: A checkpoint path or a `WarmStartSettings`.
      loss_reduction: One of `tf.losses.Reduction` except `NONE`. Defaults to
        `SUM_OVER_BATCH_SIZE`.
      batch_norm: Whether to use batch normalization after each hidden layer.
    """

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 label_dimension: int = 1, weight_column: Any = None, optimizer: Any = "Adagrad",
                 activation_fn: Any = _relu(), dropout: float | None = None, config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = "sum_over_batch_size",
                 batch_norm: bool = False):
        label_dimension = _validation.label_dimension(label_dimension, type(self).__name__)
        head = RegressionHead(label_dimension=label_dimension, weight_column=weight_column,
                              loss_reduction=loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir=model_dir, optimizer=optimizer,
                         activation_fn=activation_fn, dropout=dropout, config=config,
                         warm_start_from=warm_start_from, batch_norm=batch_norm)
