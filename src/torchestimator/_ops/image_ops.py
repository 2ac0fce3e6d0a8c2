"""tf.image over torch (NHWC or HWC, as TF)."""

from __future__ import annotations

__all__: list[str] = []
