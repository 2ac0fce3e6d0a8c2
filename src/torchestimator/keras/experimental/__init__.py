"""`tf.keras.experimental`: `SequenceFeatures` (sequence feature columns), `LinearModel`,
`WideDeepModel` where the project has it, the learning-rate schedules `CosineDecay` /
`CosineDecayRestarts` (as in `tf.keras.optimizers.schedules`), and `SidecarEvaluator` (the
deprecated name of `tf.keras.utils.SidecarEvaluator`)."""

from __future__ import annotations

import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    if name == "SequenceFeatures":
        from torchestimator.keras.feature_column._sequence_features import (  # lazy: heavy (loads the feature columns), loaded when used
            SequenceFeatures,
        )

        return SequenceFeatures
    if name in ("LinearModel", "WideDeepModel"):
        # Keras 2.15's premade models (keras/premade_models/); the feature-column linear layer
        # the canned linear estimators use has no public name in TF 2.15
        from torchestimator.keras import (  # lazy: heavy (torchestimator.keras.premade_models, 621 ms)
            premade_models,
        )

        return getattr(premade_models, name)
    if name in ("CosineDecay", "CosineDecayRestarts"):
        from torchestimator.keras.optimizers import (  # lazy: heavy (torchestimator.keras.optimizers, 1556 ms)
            schedules,
        )

        return getattr(schedules, name)
    if name == "SidecarEvaluator":
        from torchestimator.keras.utils import (  # lazy: heavy (torchestimator.keras.utils, 1166 ms)
            SidecarEvaluator,
        )

        class _DeprecatedSidecarEvaluator(SidecarEvaluator):
            """`tf.keras.experimental.SidecarEvaluator`: deprecated, use
            `tf.keras.utils.SidecarEvaluator`."""

            def __init__(self, *args: Any, **kwargs: Any):
                warnings.warn(
                    "`tf.keras.experimental.SidecarEvaluator` endpoint is deprecated and will be "
                    "removed in a future release. Please use `tf.keras.utils.SidecarEvaluator`.",
                    stacklevel=2,
                )
                super().__init__(*args, **kwargs)

        _DeprecatedSidecarEvaluator.__name__ = "SidecarEvaluator"
        globals()[name] = _DeprecatedSidecarEvaluator
        return _DeprecatedSidecarEvaluator
    raise AttributeError(f"module 'torchestimator.keras.experimental' has no attribute {name!r}")
