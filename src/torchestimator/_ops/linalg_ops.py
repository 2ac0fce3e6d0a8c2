"""tf.linalg and tf.matmul, tf.tensordot, tf.einsum over torch."""

from __future__ import annotations

__all__: list[str] = []
