"""`tf.autodiff`: `GradientTape` (reverse mode, `tf.GradientTape`) and `ForwardAccumulator`
(forward mode, over `torch.autograd.forward_ad`)."""

from __future__ import annotations

from torchestimator._gradient_tape import GradientTape
from torchestimator.autodiff._forward import ForwardAccumulator

__all__ = ["ForwardAccumulator", "GradientTape"]
