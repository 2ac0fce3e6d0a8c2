"""Canned (premade) estimators: Baseline, Linear, DNN, DNN-Linear combined (wide & deep) and
BoostedTrees, each an `Estimator` with its own model_fn, as TF 2.15's `tf.estimator.*`."""


from torchestimator.estimator.canned.baseline import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
)
from torchestimator.estimator.canned.boosted_trees import (
    BoostedTreesClassifier,
    BoostedTreesEstimator,
    BoostedTreesRegressor,
)
from torchestimator.estimator.canned.dnn import DNNClassifier, DNNEstimator, DNNRegressor
from torchestimator.estimator.canned.dnn_linear_combined import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from torchestimator.estimator.canned.linear import (
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
)
from torchestimator.estimator.canned.optimizers import get_optimizer_instance_v2
from torchestimator.estimator.canned.parsing_utils import (
    classifier_parse_example_spec,
    regressor_parse_example_spec,
)

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BoostedTreesClassifier",
    "BoostedTreesEstimator",
    "BoostedTreesRegressor",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "classifier_parse_example_spec",
    "get_optimizer_instance_v2",
    "regressor_parse_example_spec",
]

