"""Tensor creation, shapes and dtypes: tf.zeros, tf.range, tf.shape, tf.cast, TensorShape, ... (TF names over torch)."""

from __future__ import annotations

__all__: list[str] = []
