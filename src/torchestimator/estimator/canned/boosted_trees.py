"""Gradient boosted trees: `BoostedTreesClassifier`, `BoostedTreesRegressor`,
`BoostedTreesEstimator` (TF <= 2.8's arguments and behaviour), built on LightGBM.

LightGBM rather than XGBoost: it bins features into quantile histograms as
TF's BoostedTrees does (`quantile_sketch_epsilon` becomes `max_bin`), grows
depth-limited trees with L1/L2 leaf regularization and a split-gain threshold
(TF's `tree_complexity`), continues from a saved model (`init_model`), and is
a small CPU wheel. See `_tree_ensemble` for how training and checkpoints work.

Accepted feature columns: `numeric_column` (its values), `bucketized_column`
(its bucket index per dimension) and `indicator_column` (one feature per
category), as TF. `train()` collects `n_batches_per_layer` batches (or the
whole input, when it ends first), grows the ensemble to `n_trees` boosting
rounds, and stops, as TF's training stops once the trees are finalized; a
later `train()` of an Estimator with a larger `n_trees` on the same model_dir
resumes from the checkpointed booster and adds trees.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import torch

from torchestimator._engine.train_op import TrainOp
from torchestimator.estimator.canned import _validation
from torchestimator.estimator.canned._tree_ensemble import (
    TreeEnsemble,
    directional_contributions,
    import_lightgbm,
    load_booster,
)
from torchestimator.estimator.canned._tree_features import check_columns, feature_matrix
from torchestimator.estimator.canned._tree_logits import export_logits
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.head import RegressionHead, binary_or_multi_class_head
from torchestimator.estimator.head.base_head import Head, get_weights_and_check_match_logits
from torchestimator.estimator.head.binary_class_head import BinaryClassHead
from torchestimator.estimator.head.multi_class_head import MultiClassHead
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.feature_column import (
    BucketizedColumn,
)

_ENSEMBLE_VARIABLE = "boosted_trees/tree_ensemble"
# Prediction keys of `experimental_predict_with_explanations` (per-column contributions, then TF's keys).
_DFC_MATRIX, _BIAS = "_dfc_by_column", "bias"


# ----------------------------------------------------------------------------- training
class _GrowTreesOp(TrainOp):
    """The train op of a BoostedTrees step: collect the batch; grow when enough is collected."""

    def __init__(self, ensemble: TreeEnsemble, x: np.ndarray, labels: np.ndarray, weights: Any):
        super().__init__([])
        self._args = (ensemble, x, labels, weights)

    def run(self, resolved_vars: dict | None = None) -> None:
        """Adds the batch to the ensemble's collected data (growing trees when it is full)."""
        ensemble, x, labels, weights = self._args
        ensemble.add_batch(x, labels, weights)


class _FinishTreesHook(SessionRunHook):
    """Stops training once the ensemble has its trees; at the end of train(), grows trees on
    data collected from an input that ended early, and checkpoints them."""

    def __init__(self, ensemble: TreeEnsemble, save: bool):
        self._ensemble = ensemble
        self._save = save

    def after_run(self, run_context: Any, run_values: Any) -> None:
        """Requests stop when the ensemble is complete."""
        if self._ensemble.complete:
            run_context.request_stop()

    def end(self, session: Any) -> None:
        """Grows trees on what was collected (the input ended first) and saves a checkpoint."""
        if self._ensemble.collected and self._ensemble.grow() and self._save:
            session.save_checkpoint()


def lightgbm_params(head: Head, max_depth: int, learning_rate: float, l1_regularization: float,
                    l2_regularization: float, tree_complexity: float, min_node_weight: float,
                    center_bias: bool, pruning_mode: str, quantile_sketch_epsilon: float,
                    seed: int | None) -> dict:
    """TF's BoostedTrees arguments as LightGBM parameters (regularizers per example, unscaled)."""
    if isinstance(head, BinaryClassHead):
        objective: dict = {"objective": "cross_entropy"}
    elif isinstance(head, MultiClassHead):
        objective = {"objective": "multiclass", "num_class": head.logits_dimension}
    else:
        objective = {"objective": "regression"}
    return {
        **objective,
        "learning_rate": float(learning_rate),
        "max_depth": int(max_depth),
        "num_leaves": int(min(2 ** max_depth, 131072)),
        "lambda_l1": float(l1_regularization),
        "lambda_l2": float(l2_regularization),
        "min_gain_to_split": float(tree_complexity) if pruning_mode != "none" else 0.0,
        "min_sum_hessian_in_leaf": float(min_node_weight),
        "min_data_in_leaf": 1,
        "boost_from_average": bool(center_bias),
        "max_bin": max(2, int(round(1.0 / quantile_sketch_epsilon))),
        "seed": 0 if seed is None else int(seed),
        "deterministic": True,
        "force_col_wise": True,
        "verbose": -1,
    }


def boosted_trees_model_fn(features: Any, labels: Any, mode: str, head: Head, columns: tuple,
                           params: dict, n_trees: int, n_batches_per_layer: int, config: Any,
                           weight_column: Any = None, explain: bool = False) -> Any:
    """The BoostedTrees model_fn: logits from the LightGBM ensemble; in TRAIN the train op
    collects the batch for the next trees. With `explain`, PREDICT adds the directional
    feature contributions of each column and the bias."""
    ensemble = TreeEnsemble(config.model_dir, params, n_trees, n_batches_per_layer, head.logits_dimension,
                            name="boosted_trees")
    if mode == ModeKeys.PREDICT and not explain:
        logits = export_logits(
            features, columns, ensemble,
            lambda: torch.from_numpy(ensemble.raw_scores(feature_matrix(features, columns)[0])))
        return head.create_estimator_spec(features=features, mode=mode, logits=logits, labels=labels)
    x, feature_names = feature_matrix(features, columns)
    device = next((v.device for v in features.values() if isinstance(v, torch.Tensor)), torch.device("cpu"))
    logits = torch.from_numpy(ensemble.raw_scores(x)).to(device)
    if mode != ModeKeys.TRAIN:
        spec = head.create_estimator_spec(features=features, mode=mode, logits=logits, labels=labels)
        if mode == ModeKeys.PREDICT and explain:
            bias, by_column = _contributions_by_column(ensemble, x, feature_names, columns, head)
            spec = spec._replace(predictions={**spec.predictions, _BIAS: torch.from_numpy(bias),
                                              _DFC_MATRIX: torch.from_numpy(by_column)})
        return spec
    processed = head._processed_labels(logits, labels)
    weights = get_weights_and_check_match_logits(features, weight_column, logits)
    y = processed.detach().reshape(-1).to("cpu", torch.float32).numpy()
    w = None if not isinstance(weights, torch.Tensor) else weights.detach().reshape(-1).cpu().numpy()

    def _train_op_fn(loss: Any) -> TrainOp:
        return _GrowTreesOp(ensemble, x, y, w)

    spec = head.create_estimator_spec(features=features, mode=mode, logits=logits, labels=labels,
                                      train_op_fn=_train_op_fn)
    saving = bool(config.is_chief and (config.save_checkpoints_steps or config.save_checkpoints_secs))
    return spec._replace(training_hooks=tuple(spec.training_hooks) + (_FinishTreesHook(ensemble, saving),))


def _contributions_by_column(ensemble: TreeEnsemble, x: np.ndarray, feature_names: list[str],
                             columns: tuple, head: Head) -> tuple[np.ndarray, np.ndarray]:
    """(bias [batch], contributions [batch, columns]) in the prediction's space (probability of
    the positive class for a binary classifier, the value for a regressor), summed per column;
    `feature_names` is the column of each of `x`'s features (from `feature_matrix`)."""
    rows = len(x)
    booster = ensemble.booster
    if booster is None:
        return np.zeros(rows), np.zeros((rows, len(columns)))
    if isinstance(head, BinaryClassHead):
        def activation(z: Any) -> Any:
            return 1.0 / (1.0 + np.exp(-z))
    else:
        def activation(z: Any) -> Any:
            return z
    bias, per_feature = directional_contributions(booster, x, activation)
    index = {c.name: i for i, c in enumerate(columns)}
    owner = np.array([index[name] for name in feature_names])
    by_column = np.zeros((rows, len(columns)))
    np.add.at(by_column, (slice(None), owner), per_feature)
    return bias, by_column


def _feature_names(columns: tuple) -> list[str]:
    """The column name of each of the trees' features (see `feature_matrix`)."""
    names = []
    for column in columns:
        if isinstance(column, BucketizedColumn):
            width = int(np.prod(column.source_column.shape))
        else:
            width = int(np.prod(column.variable_shape))
        names.extend([column.name] * width)
    return names


# ----------------------------------------------------------------------------- estimators
def _check_tree_args(owner: str, n_batches_per_layer: Any, n_trees: Any, max_depth: Any, learning_rate: Any,
                     l1: Any, l2: Any, tree_complexity: Any, min_node_weight: Any, pruning_mode: Any,
                     quantile_sketch_epsilon: Any) -> None:
    def positive_int(value: Any, name: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{owner}: {name} must be a positive int; given {value!r}.")

    positive_int(n_batches_per_layer, "n_batches_per_layer")
    positive_int(n_trees, "n_trees")
    positive_int(max_depth, "max_depth")
    if not isinstance(learning_rate, (int, float)) or learning_rate <= 0:
        raise ValueError(f"{owner}: learning_rate must be > 0; given {learning_rate!r}.")
    for name, value in (("l1_regularization", l1), ("l2_regularization", l2),
                        ("tree_complexity", tree_complexity), ("min_node_weight", min_node_weight)):
        if not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"{owner}: {name} must be >= 0; given {value!r}.")
    if pruning_mode not in ("none", "pre", "post"):
        raise ValueError(f"{owner}: pruning_mode must be one of 'none', 'pre', 'post'; given {pruning_mode!r}.")
    if pruning_mode in ("pre", "post") and tree_complexity <= 0:
        raise ValueError(
            f"{owner}: tree_complexity must be positive when pruning_mode is {pruning_mode!r} (pruning "
            "removes splits whose gain is below tree_complexity)."
        )
    if not isinstance(quantile_sketch_epsilon, (int, float)) or not 0 < quantile_sketch_epsilon < 1:
        raise ValueError(
            f"{owner}: quantile_sketch_epsilon must be in (0, 1); given {quantile_sketch_epsilon!r}."
        )


class BoostedTreesEstimator(Estimator):
    """An Estimator for Tensorflow Boosted Trees models, with a user-specified head
    (a binary, multi-class or regression head).

    Args:
      feature_columns: numeric, bucketized and indicator columns.
      n_batches_per_layer: the number of batches to collect before growing trees.
      head: the `Head` (`BinaryClassHead`, `MultiClassHead` or `RegressionHead`).
      model_dir: Directory to save model parameters and summaries.
      weight_column: A string or a `NumericColumn` defining the example weights.
      n_trees: number of trees (boosting rounds) to create.
      max_depth: maximum depth of the tree to grow.
      learning_rate: shrinkage parameter applied to each tree's output.
      l1_regularization: per-example L1 regularization of the leaf weights.
      l2_regularization: per-example L2 regularization of the leaf weights.
      tree_complexity: per-example gain a split must bring ('pre'/'post' pruning).
      min_node_weight: minimum (per-example) hessian a node must have for a split.
      config: `RunConfig` object.
      center_bias: whether the first trees start from the label prior (LightGBM's
        `boost_from_average`) instead of 0.
      pruning_mode: 'none', 'pre' or 'post' (LightGBM prunes before splitting for both).
      quantile_sketch_epsilon: the features are binned into 1/epsilon quantile buckets.
    """

    def __init__(self, feature_columns: Any, n_batches_per_layer: int, head: Head,
                 model_dir: str | None = None, weight_column: Any = None, n_trees: int = 100,
                 max_depth: int = 6, learning_rate: float = 0.1, l1_regularization: float = 0.0,
                 l2_regularization: float = 0.0, tree_complexity: float = 0.0,
                 min_node_weight: float = 0.0, config: Any = None, center_bias: bool = False,
                 pruning_mode: str = "none", quantile_sketch_epsilon: float = 0.01):
        self._init_trees(feature_columns, n_batches_per_layer, head, model_dir, weight_column, n_trees,
                         max_depth, learning_rate, l1_regularization, l2_regularization, tree_complexity,
                         min_node_weight, config, center_bias, pruning_mode, quantile_sketch_epsilon)

    def _init_trees(self, feature_columns: Any, n_batches_per_layer: int, head: Head, model_dir: Any,
                    weight_column: Any, n_trees: int, max_depth: int, learning_rate: float, l1: float,
                    l2: float, tree_complexity: float, min_node_weight: float, config: Any,
                    center_bias: bool, pruning_mode: str, quantile_sketch_epsilon: float) -> None:
        owner = type(self).__name__
        if not isinstance(head, (BinaryClassHead, MultiClassHead, RegressionHead)):
            raise ValueError(
                f"{owner}: head must be a BinaryClassHead, MultiClassHead or RegressionHead; given {head!r}."
            )
        if isinstance(head, RegressionHead) and head.logits_dimension != 1:
            raise ValueError(
                f"{owner}: label_dimension must be 1 (LightGBM trees predict one value per example); "
                f"given {head.logits_dimension}."
            )
        if isinstance(head, MultiClassHead) and center_bias:
            raise ValueError(f"{owner}: center_bias is not supported for multi-class (n_classes > 2).")
        _check_tree_args(owner, n_batches_per_layer, n_trees, max_depth, learning_rate, l1, l2,
                         tree_complexity, min_node_weight, pruning_mode, quantile_sketch_epsilon)
        import_lightgbm()
        columns = check_columns(feature_columns, owner)
        self._head = head
        self._columns = columns
        self._n_trees = int(n_trees)
        seed = getattr(config, "tf_random_seed", None) if config is not None else None
        params = lightgbm_params(head, max_depth, learning_rate, l1, l2, tree_complexity, min_node_weight,
                                 center_bias, pruning_mode, quantile_sketch_epsilon, seed)
        batches = int(n_batches_per_layer)

        self._center_bias = bool(center_bias)
        self._explaining = False

        def _model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
            return boosted_trees_model_fn(features, labels, mode, head, columns, params, n_trees, batches,
                                          config, weight_column, explain=self._explaining)

        Estimator.__init__(self, model_fn=_model_fn, model_dir=model_dir, config=config)

    def experimental_predict_with_explanations(self, input_fn: Any, predict_keys: Any = None,
                                               hooks: Any = None, checkpoint_path: str | None = None) -> Any:
        """Computes model explainability outputs per example along with predictions.

        Currently supports directional feature contributions (DFCs). For each
        example, DFCs indicate the aggregate contribution of each feature (column)
        to the prediction: the per-tree change of the prediction at each split,
        credited to the split's column (Saabas' method, in probability space for
        a classifier). The sum of an example's DFCs plus the `bias` equals its
        prediction: the probability of the positive class (`probabilities[1]`) for
        a classifier, `predictions` for a regressor.

        Args:
          input_fn, predict_keys, hooks, checkpoint_path: as `Estimator.predict`.

        Yields:
          The prediction dict of each example with two more keys: `bias` (float)
          and `dfc`, an `OrderedDict` of feature column name -> contribution,
          sorted by absolute contribution, largest first.

        Raises:
          ValueError: when the estimator was made without `center_bias=True`, or
            is a multi-class classifier (as TF).
        """
        if isinstance(self._head, MultiClassHead):
            raise ValueError(
                "experimental_predict_with_explanations does not yet support multi-class classification "
                "and multi-label."
            )
        if not self._center_bias:
            raise ValueError(
                "center_bias must be enabled during estimator instantiation when using "
                "experimental_predict_with_explanations."
            )
        names = [c.name for c in self._columns]
        keys = None if predict_keys is None else [
            *([predict_keys] if isinstance(predict_keys, str) else list(predict_keys)), _BIAS, _DFC_MATRIX]
        self._explaining = True
        try:
            predictions = self.predict(input_fn, predict_keys=keys, hooks=hooks, checkpoint_path=checkpoint_path)
            for prediction in predictions:
                values = prediction.pop(_DFC_MATRIX)
                prediction[_BIAS] = float(prediction[_BIAS])
                order = np.argsort(-np.abs(values), kind="stable")
                prediction["dfc"] = collections.OrderedDict((names[i], float(values[i])) for i in order)
                yield prediction
        finally:
            self._explaining = False

    def experimental_feature_importances(self, normalize: bool = False) -> collections.OrderedDict:
        """Computes gain-based feature importances.

        The higher the value, the more important the corresponding feature.

        Args:
          normalize: If True, normalize the feature importances to sum to 1.

        Returns:
          An `OrderedDict` of feature column name -> importance (total split gain
          of the column's features over all trees), sorted by importance,
          largest first.

        Raises:
          ValueError: When there is no checkpoint yet, or when attempting to
            normalize on an empty ensemble or one whose trees have no splits.
        """
        reference = self.get_variable_value(_ENSEMBLE_VARIABLE)
        booster = load_booster(self.model_dir, reference)
        names = _feature_names(self._columns)
        totals = collections.OrderedDict((c.name, 0.0) for c in self._columns)
        if booster is not None:
            gains = booster.feature_importance(importance_type="gain")
            for name, gain in zip(names, gains):
                totals[name] += float(gain)
        if normalize:
            total = sum(totals.values())
            if total <= 0:
                raise ValueError(
                    "Cannot normalize the feature importances: the ensemble is empty or its trees have "
                    "no splits."
                )
            totals = collections.OrderedDict((k, v / total) for k, v in totals.items())
        return collections.OrderedDict(sorted(totals.items(), key=lambda kv: -kv[1]))


class BoostedTreesClassifier(BoostedTreesEstimator):
    """A Classifier for Tensorflow Boosted Trees models.

    Example:

        bucketized = [tf.feature_column.bucketized_column(...), ...]
        classifier = tf.estimator.BoostedTreesClassifier(
            feature_columns=bucketized, n_batches_per_layer=n_batches, n_trees=100)
        classifier.train(input_fn=train_input_fn)
        metrics = classifier.evaluate(input_fn=eval_input_fn)

    Args:
      feature_columns: numeric, bucketized and indicator columns.
      n_batches_per_layer: the number of batches to collect before growing
        trees (the batches of one pass over the data, as TF suggests).
      model_dir: Directory to save model parameters and summaries.
      n_classes: number of label classes. Default is binary classification.
      weight_column: A string or a `NumericColumn` defining the example weights.
      label_vocabulary: A list of strings represents possible label values.
      n_trees: number of trees to create.
      max_depth: maximum depth of the tree to grow.
      learning_rate: shrinkage parameter to be used when a tree added to the model.
      l1_regularization: regularization multiplier applied to the absolute
        weights of the tree leafs (per example).
      l2_regularization: regularization multiplier applied to the square weights
        of the tree leafs (per example).
      tree_complexity: regularization factor to penalize trees with more leaves.
      min_node_weight: min_node_weight: minimum hessian a node must have for a
        split to be considered.
      config: `RunConfig` object.
      center_bias: Whether bias centering needs to occur.
      pruning_mode: one of 'none', 'pre', 'post'.
      quantile_sketch_epsilon: float between 0 and 1: the error bound of the
        quantile buckets (1/epsilon buckets per feature).
      train_in_memory: `bool`, when true, the input_fn gives the whole data set
        as one batch (TF then required `n_batches_per_layer=1`); accepted, and
        the same as collecting one batch.

    Raises:
      ValueError: when wrong arguments are given or unsupported functionalities
         are requested.
    """

    def __init__(self, feature_columns: Any, n_batches_per_layer: int, model_dir: str | None = None,
                 n_classes: int = 2, weight_column: Any = None, label_vocabulary: Any = None,
                 n_trees: int = 100, max_depth: int = 6, learning_rate: float = 0.1,
                 l1_regularization: float = 0.0, l2_regularization: float = 0.0,
                 tree_complexity: float = 0.0, min_node_weight: float = 0.0, config: Any = None,
                 center_bias: bool = False, pruning_mode: str = "none",
                 quantile_sketch_epsilon: float = 0.01, train_in_memory: bool = False):
        head = binary_or_multi_class_head(n_classes, weight_column=weight_column,
                                          label_vocabulary=label_vocabulary)
        if train_in_memory and n_batches_per_layer != 1:
            raise ValueError("BoostedTreesClassifier: train_in_memory=True needs n_batches_per_layer=1.")
        self._init_trees(feature_columns, n_batches_per_layer, head, model_dir, weight_column, n_trees,
                         max_depth, learning_rate, l1_regularization, l2_regularization, tree_complexity,
                         min_node_weight, config, center_bias, pruning_mode, quantile_sketch_epsilon)


class BoostedTreesRegressor(BoostedTreesEstimator):
    """A Regressor for Tensorflow Boosted Trees models.

    Args:
      feature_columns: numeric, bucketized and indicator columns.
      n_batches_per_layer: the number of batches to collect before growing trees.
      model_dir: Directory to save model parameters and summaries.
      label_dimension: Number of regression targets per example (1: LightGBM
        trees predict one value).
      weight_column: A string or a `NumericColumn` defining the example weights.
      n_trees: number of trees to create.
      max_depth: maximum depth of the tree to grow.
      learning_rate: shrinkage parameter to be used when a tree added to the model.
      l1_regularization: per-example L1 regularization of the leaf weights.
      l2_regularization: per-example L2 regularization of the leaf weights.
      tree_complexity: regularization factor to penalize trees with more leaves.
      min_node_weight: minimum hessian a node must have for a split to be considered.
      config: `RunConfig` object.
      center_bias: Whether bias centering needs to occur (start from the label mean).
      pruning_mode: one of 'none', 'pre', 'post'.
      quantile_sketch_epsilon: float between 0 and 1 (1/epsilon buckets per feature).
      train_in_memory: accepted as in `BoostedTreesClassifier`.
    """

    def __init__(self, feature_columns: Any, n_batches_per_layer: int, model_dir: str | None = None,
                 label_dimension: int = 1, weight_column: Any = None, n_trees: int = 100,
                 max_depth: int = 6, learning_rate: float = 0.1, l1_regularization: float = 0.0,
                 l2_regularization: float = 0.0, tree_complexity: float = 0.0,
                 min_node_weight: float = 0.0, config: Any = None, center_bias: bool = False,
                 pruning_mode: str = "none", quantile_sketch_epsilon: float = 0.01,
                 train_in_memory: bool = False):
        label_dimension = _validation.label_dimension(label_dimension, type(self).__name__)
        head = RegressionHead(label_dimension=label_dimension, weight_column=weight_column)
        if train_in_memory and n_batches_per_layer != 1:
            raise ValueError("BoostedTreesRegressor: train_in_memory=True needs n_batches_per_layer=1.")
        self._init_trees(feature_columns, n_batches_per_layer, head, model_dir, weight_column, n_trees,
                         max_depth, learning_rate, l1_regularization, l2_regularization, tree_complexity,
                         min_node_weight, config, center_bias, pruning_mode, quantile_sketch_epsilon)
