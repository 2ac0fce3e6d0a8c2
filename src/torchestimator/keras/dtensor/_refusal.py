"""The one error of `tf.keras.dtensor`: DTensor is TensorFlow's own mesh runtime."""

from __future__ import annotations


def dtensor_unavailable(name: str) -> NotImplementedError:
    """The error raised for `tf.keras.dtensor.<name>`: names DTensor and what to use instead."""
    return NotImplementedError(
        f"tf.keras.dtensor.{name} is not available: Keras' DTensor API (LayoutMap and the DTensor "
        "optimizers) runs on TensorFlow's DTensor mesh runtime, which this PyTorch-based "
        "library does not have. Distribute training with tf.distribute strategies instead "
        "(tf.distribute.MirroredStrategy, MultiWorkerMirroredStrategy: "
        "`with strategy.scope(): model.compile(...)`), and use the ordinary "
        "tf.keras.optimizers."
    )
