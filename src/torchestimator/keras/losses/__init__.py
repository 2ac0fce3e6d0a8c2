"""`tf.keras.losses`: Keras 2.15's loss classes and functions, computed with torch.

    loss = tf.keras.losses.CategoricalCrossentropy(from_logits=True)
    value = loss(y_true, logits, sample_weight=None)   # a scalar torch tensor

PyTorch losses take `(input, target)`, predictions first: `compile(loss=...)` calls a
`torch.nn` loss module (`torch.nn.CrossEntropyLoss()`) or a `torch.nn.functional` function in
that order, with the labels as they are; `from_torch(fn)` says so of any other function.

Every loss returns per-sample values (functions) or the weighted, reduced
value (`Loss` instances, `reduction` = 'auto' | 'sum_over_batch_size' | 'sum'
| 'none'); probabilities are clipped with epsilon 1e-7 as Keras does.
"""

from torchestimator.keras.losses._classes import (
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from torchestimator.keras.losses._crossentropy import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    sparse_categorical_crossentropy,
)
from torchestimator.keras.losses._lookup import _register_builtins, deserialize, get, serialize
from torchestimator.keras.losses._loss import Loss, LossFunctionWrapper
from torchestimator.keras.losses._reduction import Reduction
from torchestimator.keras.losses._regression import (
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    squared_hinge,
)
from torchestimator.keras.losses._torch import from_torch

# Aliases, as Keras exports them.
bce = BCE = binary_crossentropy
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
huber_loss = huber

_register_builtins()

__all__ = [
    "BCE", "KLD", "MAE", "MAPE", "MSE", "MSLE", "BinaryCrossentropy", "BinaryFocalCrossentropy",
    "CategoricalCrossentropy", "CategoricalFocalCrossentropy", "CategoricalHinge",
    "CosineSimilarity", "Hinge", "Huber", "KLDivergence", "LogCosh", "Loss",
    "LossFunctionWrapper", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson", "Reduction",
    "SparseCategoricalCrossentropy", "SquaredHinge", "bce", "binary_crossentropy",
    "binary_focal_crossentropy", "categorical_crossentropy", "categorical_focal_crossentropy",
    "categorical_hinge", "cosine_similarity", "deserialize", "from_torch", "get", "hinge", "huber",
    "huber_loss", "kl_divergence", "kld", "kullback_leibler_divergence", "log_cosh", "logcosh",
    "mae", "mape", "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "mse", "msle", "poisson", "serialize",
    "sparse_categorical_crossentropy", "squared_hinge",
]
