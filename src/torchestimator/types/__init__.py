"""`tf.types`: `tf.types.experimental`, TF's type annotations (`TensorLike`, ...) and the
abstract function types."""

from __future__ import annotations

from torchestimator.types import experimental

__all__ = ["experimental"]
