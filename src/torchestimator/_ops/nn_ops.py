"""tf.nn: activations, losses, convolutions and pooling in TF's NHWC layout, over torch."""

from __future__ import annotations

__all__: list[str] = []
