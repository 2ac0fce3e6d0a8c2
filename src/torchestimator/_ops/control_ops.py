"""tf.group, tf.no_op, tf.control_dependencies, tf.device, tf.print, tf.function, tf.identity_n: eager control over torch."""

from __future__ import annotations

__all__: list[str] = []
