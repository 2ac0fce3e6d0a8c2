"""tf.random over torch's generators."""

from __future__ import annotations

__all__: list[str] = []
