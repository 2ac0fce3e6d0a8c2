"""tf.math: elementwise math, comparisons, reductions, segment ops (TF names, axes and dtype rules over torch)."""

from __future__ import annotations

__all__: list[str] = []
