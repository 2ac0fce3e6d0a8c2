"""`tf.compat.v1.estimator`: the canned estimators with TF1's defaults, and the Estimator API.

TF1's canned estimators differ from TF2's in their defaults only: the loss
reduction is `tf.compat.v1.losses.Reduction.SUM` (the training loss is the
weighted *sum* over the batch), optimizers given by name are
`tf.compat.v1.train.*Optimizer`s, and the DNN's default Adagrad learning rate is
0.05 (TF2: 0.001). Linear, Baseline and DNN-Linear combined keep their learning
rates (Ftrl 0.2; Ftrl 0.3; Ftrl min(0.005, 1/sqrt(#linear columns)) and
Adagrad 0.001). The `partitioner` / `input_layer_partitioner` arguments (TF1
variable sharding over parameter servers) are accepted; variables are not
partitioned.

Every other name (`Estimator`, `EstimatorSpec`, `ModeKeys`, `RunConfig`, hooks,
`WarmStartSettings`, `export`, ...) is `tf.estimator`'s.
"""

from __future__ import annotations

from typing import Any

import torchestimator.estimator as v2
from torchestimator.compat.v1._canned_optimizers import TF1
from torchestimator.estimator import inputs  # noqa: F401  (tf.compat.v1.estimator.inputs)
from torchestimator.estimator._tpu_refusal import tpu
from torchestimator.estimator.canned import (
    baseline,
    boosted_trees,
    dnn,
    dnn_linear_combined,
    linear,
)
from torchestimator.estimator.canned.dnn import _relu

_SUM = "weighted_sum"  # tf.compat.v1.losses.Reduction.SUM


class BaselineClassifier(baseline.BaselineClassifier):
    """TF1's `BaselineClassifier`: learns the class prior; Ftrl at 0.3, loss reduction SUM.

    Args: as `tf.estimator.BaselineClassifier` (`loss_reduction` defaults to
    `tf.compat.v1.losses.Reduction.SUM`; a string optimizer is a
    `tf.compat.v1.train` optimizer).
    """

    _optimizers = TF1

    def __init__(self, model_dir: str | None = None, n_classes: int = 2, weight_column: Any = None,
                 label_vocabulary: Any = None, optimizer: Any = "Ftrl", config: Any = None,
                 loss_reduction: str = _SUM):
        super().__init__(model_dir=model_dir, n_classes=n_classes, weight_column=weight_column,
                         label_vocabulary=label_vocabulary, optimizer=optimizer, config=config,
                         loss_reduction=loss_reduction)


class BaselineRegressor(baseline.BaselineRegressor):
    """TF1's `BaselineRegressor`: learns the label mean; Ftrl at 0.3, loss reduction SUM."""

    _optimizers = TF1

    def __init__(self, model_dir: str | None = None, label_dimension: int = 1, weight_column: Any = None,
                 optimizer: Any = "Ftrl", config: Any = None, loss_reduction: str = _SUM):
        super().__init__(model_dir=model_dir, label_dimension=label_dimension, weight_column=weight_column,
                         optimizer=optimizer, config=config, loss_reduction=loss_reduction)


class BaselineEstimator(baseline.BaselineEstimator):
    """TF1's `BaselineEstimator(head, ...)` (the head decides the loss reduction)."""

    _optimizers = TF1


class LinearClassifier(linear.LinearClassifier):
    """TF1's `LinearClassifier`: Ftrl at 0.2, loss reduction SUM; `partitioner` is accepted."""

    _optimizers = TF1

    def __init__(self, feature_columns: Any, model_dir: str | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None, optimizer: Any = "Ftrl",
                 config: Any = None, partitioner: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = _SUM, sparse_combiner: str = "sum"):
        del partitioner
        super().__init__(feature_columns, model_dir=model_dir, n_classes=n_classes,
                         weight_column=weight_column, label_vocabulary=label_vocabulary,
                         optimizer=optimizer, config=config, warm_start_from=warm_start_from,
                         loss_reduction=loss_reduction, sparse_combiner=sparse_combiner)


class LinearRegressor(linear.LinearRegressor):
    """TF1's `LinearRegressor`: Ftrl at 0.2, loss reduction SUM; `partitioner` is accepted."""

    _optimizers = TF1

    def __init__(self, feature_columns: Any, model_dir: str | None = None, label_dimension: int = 1,
                 weight_column: Any = None, optimizer: Any = "Ftrl", config: Any = None,
                 partitioner: Any = None, warm_start_from: Any = None, loss_reduction: str = _SUM,
                 sparse_combiner: str = "sum"):
        del partitioner
        super().__init__(feature_columns, model_dir=model_dir, label_dimension=label_dimension,
                         weight_column=weight_column, optimizer=optimizer, config=config,
                         warm_start_from=warm_start_from, loss_reduction=loss_reduction,
                         sparse_combiner=sparse_combiner)


class LinearEstimator(linear.LinearEstimator):
    """TF1's `LinearEstimator(head, feature_columns, ...)`; `partitioner` is accepted."""

    _optimizers = TF1

    def __init__(self, head: Any, feature_columns: Any, model_dir: str | None = None, optimizer: Any = "Ftrl",
                 config: Any = None, partitioner: Any = None, sparse_combiner: str = "sum",
                 warm_start_from: Any = None):
        del partitioner
        super().__init__(head, feature_columns, model_dir=model_dir, optimizer=optimizer, config=config,
                         sparse_combiner=sparse_combiner, warm_start_from=warm_start_from)


class DNNClassifier(dnn.DNNClassifier):
    """TF1's `DNNClassifier`: Adagrad at 0.05 (TF2: 0.001), loss reduction SUM.

    The seeds' flower example reaches its accuracy with these defaults:

        classifier = tf.compat.v1.estimator.DNNClassifier(
            feature_columns=my_feature_columns, hidden_units=[10, 10], n_classes=3)
    """

    _optimizers = TF1

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 n_classes: int = 2, weight_column: Any = None, label_vocabulary: Any = None,
                 optimizer: Any = "Adagrad", activation_fn: Any = _relu(), dropout: float | None = None,
                 input_layer_partitioner: Any = None, config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = _SUM, batch_norm: bool = False):
        del input_layer_partitioner
        super().__init__(hidden_units, feature_columns, model_dir=model_dir, n_classes=n_classes,
                         weight_column=weight_column, label_vocabulary=label_vocabulary, optimizer=optimizer,
                         activation_fn=activation_fn, dropout=dropout, config=config,
                         warm_start_from=warm_start_from, loss_reduction=loss_reduction,
                         batch_norm=batch_norm)


class DNNRegressor(dnn.DNNRegressor):
    """TF1's `DNNRegressor`: Adagrad at 0.05, loss reduction SUM."""

    _optimizers = TF1

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 label_dimension: int = 1, weight_column: Any = None, optimizer: Any = "Adagrad",
                 activation_fn: Any = _relu(), dropout: float | None = None,
                 input_layer_partitioner: Any = None, config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = _SUM, batch_norm: bool = False):
        del input_layer_partitioner
        super().__init__(hidden_units, feature_columns, model_dir=model_dir, label_dimension=label_dimension,
                         weight_column=weight_column, optimizer=optimizer, activation_fn=activation_fn,
                         dropout=dropout, config=config, warm_start_from=warm_start_from,
                         loss_reduction=loss_reduction, batch_norm=batch_norm)


class DNNEstimator(dnn.DNNEstimator):
    """TF1's `DNNEstimator(head, hidden_units, feature_columns, ...)`: Adagrad at 0.05."""

    _optimizers = TF1

    def __init__(self, head: Any, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 optimizer: Any = "Adagrad", activation_fn: Any = _relu(), dropout: float | None = None,
                 input_layer_partitioner: Any = None, config: Any = None, warm_start_from: Any = None,
                 batch_norm: bool = False):
        del input_layer_partitioner
        super().__init__(head, hidden_units, feature_columns, model_dir=model_dir, optimizer=optimizer,
                         activation_fn=activation_fn, dropout=dropout, config=config,
                         warm_start_from=warm_start_from, batch_norm=batch_norm)


class DNNLinearCombinedClassifier(dnn_linear_combined.DNNLinearCombinedClassifier):
    """TF1's wide & deep classifier: loss reduction SUM, `tf.compat.v1.train` optimizers."""

    _optimizers = TF1

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Any = _relu(), dnn_dropout: float | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None,
                 input_layer_partitioner: Any = None, config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = _SUM, batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        del input_layer_partitioner
        super().__init__(model_dir=model_dir, linear_feature_columns=linear_feature_columns,
                         linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
                         dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
                         dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, n_classes=n_classes,
                         weight_column=weight_column, label_vocabulary=label_vocabulary, config=config,
                         warm_start_from=warm_start_from, loss_reduction=loss_reduction,
                         batch_norm=batch_norm, linear_sparse_combiner=linear_sparse_combiner)


class DNNLinearCombinedRegressor(dnn_linear_combined.DNNLinearCombinedRegressor):
    """TF1's wide & deep regressor: loss reduction SUM, `tf.compat.v1.train` optimizers."""

    _optimizers = TF1

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Any = _relu(), dnn_dropout: float | None = None,
                 label_dimension: int = 1, weight_column: Any = None, input_layer_partitioner: Any = None,
                 config: Any = None, warm_start_from: Any = None, loss_reduction: str = _SUM,
                 batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        del input_layer_partitioner
        super().__init__(model_dir=model_dir, linear_feature_columns=linear_feature_columns,
                         linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
                         dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
                         dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout,
                         label_dimension=label_dimension, weight_column=weight_column, config=config,
                         warm_start_from=warm_start_from, loss_reduction=loss_reduction,
                         batch_norm=batch_norm, linear_sparse_combiner=linear_sparse_combiner)


class DNNLinearCombinedEstimator(dnn_linear_combined.DNNLinearCombinedEstimator):
    """TF1's wide & deep estimator with a custom head; `input_layer_partitioner` is accepted."""

    _optimizers = TF1

    def __init__(self, head: Any, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None,
                 dnn_optimizer: Any = "Adagrad", dnn_hidden_units: Any = None,
                 dnn_activation_fn: Any = _relu(), dnn_dropout: float | None = None,
                 input_layer_partitioner: Any = None, config: Any = None, batch_norm: bool = False,
                 linear_sparse_combiner: str = "sum"):
        del input_layer_partitioner
        super().__init__(head, model_dir=model_dir, linear_feature_columns=linear_feature_columns,
                         linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
                         dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
                         dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, config=config,
                         batch_norm=batch_norm, linear_sparse_combiner=linear_sparse_combiner)


BoostedTreesClassifier = boosted_trees.BoostedTreesClassifier
BoostedTreesRegressor = boosted_trees.BoostedTreesRegressor
BoostedTreesEstimator = boosted_trees.BoostedTreesEstimator


def __getattr__(name: str) -> Any:
    """Every other name is `tf.estimator`'s (Estimator, EstimatorSpec, ModeKeys, RunConfig, ...)."""

    if name == "tpu":  # TF1's TPUEstimator API: refused by name (docs/refusals.md)
        return tpu

    try:
        return getattr(v2, name)
    except AttributeError:
        raise AttributeError(f"module 'torchestimator.compat.v1.estimator' has no attribute {name!r}") from None
