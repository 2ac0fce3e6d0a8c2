"""Shape and indexing ops: tf.reshape, tf.concat, tf.gather, tf.where, tf.pad, ... (TF names over torch)."""

from __future__ import annotations

__all__: list[str] = []
