"""Keras 2.15's premade models (`keras/premade_models/`): `LinearModel` and `WideDeepModel`,
public as `tf.keras.experimental.LinearModel` / `WideDeepModel`.

Not to be confused with the feature-column linear layer the canned linear estimators use
(`torchestimator.keras.feature_column._linear_model.LinearModel`, private in TF 2.15 too:
tensorflow_estimator's `canned/linear.py` exports no name for it; its public route is the
function `tf.compat.v1.feature_column.linear_model`).
"""

from torchestimator.keras.premade_models.linear import LinearModel
from torchestimator.keras.premade_models.wide_deep import WideDeepModel

__all__ = ["LinearModel", "WideDeepModel"]
