"""`tf.profiler`: `tf.profiler.experimental` (start/stop/Profile/Trace over torch.profiler)."""

from __future__ import annotations

from torchestimator.profiler import experimental

__all__ = ["experimental"]
