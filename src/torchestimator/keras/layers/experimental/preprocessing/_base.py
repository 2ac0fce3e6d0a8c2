"""`PreprocessingLayer`: Keras 2.15's base class of the layers whose state is computed from
data before training (`adapt`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.keras.engine.base_layer import Layer


class PreprocessingLayer(Layer):
    """Base class for Preprocessing Layers (`tf.keras.layers.experimental.preprocessing`).

    A subclass implements `update_state(data)` (accumulate one batch) and optionally
    `reset_state()` and `finalize_state()`; `adapt(data)` resets the state, feeds every batch
    of `data` to `update_state` and finalizes it. `is_adapted` tells whether `adapt` ran.
    """

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self._is_adapted = False

    @property
    def is_adapted(self) -> bool:
        """Whether the layer has been fit to data already."""
        return self._is_adapted

    def update_state(self, data: Any) -> None:
        """Accumulates statistics for the preprocessing layer (one batch)."""
        raise NotImplementedError(
            f"{type(self).__name__} does not implement update_state(data), which adapt() calls "
            "with each batch: implement it to accumulate the layer's statistics."
        )

    def reset_state(self) -> None:
        """Resets the statistics of the preprocessing layer."""

    def finalize_state(self) -> None:
        """Finalizes the statistics after the last `update_state` (default: nothing)."""

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Fits the state of the layer to `data`: a numpy array, a tensor, a list, or a
        `tf.data.Dataset` (of batches). Arrays are split in batches of `batch_size` (default
        32); `steps` bounds the number of batches read."""

        from torchestimator.data.dataset import (  # lazy: heavy (torchestimator.data.dataset, 75 ms)
            Dataset,
        )

        if isinstance(data, Dataset):
            batches: Any = data
        else:
            if isinstance(data, list):
                data = np.asarray(data)
            size = batch_size or 32
            count = len(data)
            batches = (data[i:i + size] for i in range(0, count, size))
        self.reset_state()
        for index, batch in enumerate(batches):
            if steps is not None and index >= steps:
                break
            if isinstance(batch, np.ndarray) and batch.dtype.kind in "iufb":
                batch = torch.from_numpy(np.ascontiguousarray(batch))
            self.update_state(batch)
        self.finalize_state()
        self._is_adapted = True
