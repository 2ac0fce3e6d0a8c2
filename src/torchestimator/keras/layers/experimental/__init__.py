"""`tf.keras.layers.experimental`: `SyncBatchNormalization`, `EinsumDense`, and `preprocessing` (the
preprocessing layers' older names)."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.core.einsum_dense import EinsumDense
from torchestimator.keras.layers.experimental import preprocessing
from torchestimator.keras.layers.normalization.batch_normalization import BatchNormalization


class SyncBatchNormalization(BatchNormalization):
    """Normalize and scale inputs or activations synchronously across replicas
    (`tf.keras.layers.experimental.SyncBatchNormalization`): `BatchNormalization(synchronized=True)`,
    whose batch statistics in training are all-reduced over the processes of a
    `tf.distribute` strategy (plain BatchNormalization stays per replica, as TF's)."""

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3, **kwargs: Any) -> None:
        kwargs.pop("synchronized", None)
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, synchronized=True, **kwargs)


__all__ = ["EinsumDense", "SyncBatchNormalization", "preprocessing"]
