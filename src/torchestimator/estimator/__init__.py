"""`tf.estimator`: the Estimator, premade estimators and heads, specs, RunConfig, hooks and
warm starting — on PyTorch."""

from torchestimator.estimator import experimental, export, inputs
from torchestimator.estimator._estimator_extras import add_metrics
from torchestimator.estimator._exporter import (
    BestExporter,
    Exporter,
    FinalExporter,
    LatestExporter,
)
from torchestimator.estimator._training import EvalSpec, TrainSpec, train_and_evaluate
from torchestimator.estimator.canned import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
    BoostedTreesClassifier,
    BoostedTreesEstimator,
    BoostedTreesRegressor,
    DNNClassifier,
    DNNEstimator,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
    classifier_parse_example_spec,
    regressor_parse_example_spec,
)
from torchestimator.estimator.estimator import Estimator
from torchestimator.estimator.estimator_spec import EstimatorSpec
from torchestimator.estimator.head import (
    BinaryClassHead,
    Head,
    LogisticRegressionHead,
    MultiClassHead,
    MultiHead,
    MultiLabelHead,
    PoissonRegressionHead,
    RegressionHead,
)
from torchestimator.estimator.hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProfilerHook,
    SecondOrStepTimer,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.estimator.run_config import RunConfig
from torchestimator.estimator.warm_starting import VocabInfo, WarmStartSettings
