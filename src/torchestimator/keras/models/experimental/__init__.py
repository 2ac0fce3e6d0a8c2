"""`tf.keras.models.experimental`: `SharpnessAwareMinimization`."""

from torchestimator.keras.models._sharpness_aware_minimization import SharpnessAwareMinimization

__all__ = ["SharpnessAwareMinimization"]
