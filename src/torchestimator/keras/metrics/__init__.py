"""`tf.keras.metrics`: Keras 2.15's stateful metrics, with their state as torch tensors.

    m = tf.keras.metrics.AUC()
    m.update_state(y_true, y_pred)      # no host sync; state follows the inputs' device
    m.result()                          # a torch scalar
    m.reset_state()

torchmetrics objects (and torch losses) in `compile(metrics=[...])` become Keras metrics
(`TorchMetric`: `update(preds, target)`, `compute()`, `reset()`); `from_torch(metric, name)`
names one.

Metrics are plain Python objects (not `torch.nn.Module`s). `resolve_metric`
and `resolve_accuracy` turn `compile(metrics=[...])` entries into metric
objects by Keras 2.15's rules.
"""

from torchestimator.keras.losses import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from torchestimator.keras.metrics._accuracy import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
)
from torchestimator.keras.metrics._auc import AUC
from torchestimator.keras.metrics._confusion import (
    FalseNegatives,
    FalsePositives,
    Precision,
    PrecisionAtRecall,
    Recall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SensitivitySpecificityBase,
    SpecificityAtSensitivity,
    TrueNegatives,
    TruePositives,
)
from torchestimator.keras.metrics._functions import (
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    cosine_similarity,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from torchestimator.keras.metrics._iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from torchestimator.keras.metrics._lookup import (
    _register_builtins,
    deserialize,
    get,
    resolve_accuracy,
    resolve_metric,
    serialize,
)
from torchestimator.keras.metrics._metric import Metric
from torchestimator.keras.metrics._probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    Hinge,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from torchestimator.keras.metrics._reduce import (
    Mean,
    MeanMetricWrapper,
    MeanTensor,
    Reduce,
    Sum,
    SumOverBatchSize,
)
from torchestimator.keras.metrics._regression import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanRelativeError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    RootMeanSquaredError,
)
from torchestimator.keras.metrics._scores import F1Score, FBetaScore, R2Score
from torchestimator.keras.metrics._torch import from_torch
from torchestimator.keras.metrics._variable import StateVariable

# Aliases, as Keras exports them.
acc = ACC = accuracy
bce = BCE = binary_crossentropy
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
cosine_proximity = cosine_similarity

_register_builtins()

__all__ = [
    "ACC", "AUC", "Accuracy", "BCE", "BinaryAccuracy", "BinaryCrossentropy", "BinaryIoU",
    "CategoricalAccuracy", "CategoricalCrossentropy", "CategoricalHinge", "CosineSimilarity",
    "F1Score", "FBetaScore", "R2Score",
    "FalseNegatives", "FalsePositives", "Hinge", "IoU", "KLD", "KLDivergence", "LogCoshError",
    "MAE", "MAPE", "MSE", "MSLE", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanIoU", "MeanMetricWrapper", "MeanRelativeError", "MeanSquaredError",
    "MeanSquaredLogarithmicError", "MeanTensor", "Metric", "OneHotIoU", "OneHotMeanIoU",
    "Poisson", "Precision", "PrecisionAtRecall", "Recall", "RecallAtPrecision", "Reduce",
    "RootMeanSquaredError", "SensitivityAtSpecificity", "SensitivitySpecificityBase",
    "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy", "SparseTopKCategoricalAccuracy",
    "SpecificityAtSensitivity", "SquaredHinge", "StateVariable", "Sum", "SumOverBatchSize",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives",
    "acc", "accuracy", "bce",
    "binary_accuracy", "binary_crossentropy", "binary_focal_crossentropy",
    "categorical_accuracy", "categorical_crossentropy", "categorical_focal_crossentropy",
    "categorical_hinge", "cosine_proximity", "cosine_similarity", "deserialize", "get", "hinge",
    "from_torch", "kl_divergence", "kld", "kullback_leibler_divergence", "log_cosh", "logcosh", "mae", "mape",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "mse", "msle", "poisson", "resolve_accuracy",
    "resolve_metric", "serialize", "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy", "sparse_top_k_categorical_accuracy", "squared_hinge",
    "top_k_categorical_accuracy",
]
