"""Scalars that an optimizer hands out where TF handed out a `tf.Variable`.

`optimizer.learning_rate` is a Python float and `optimizer.iterations` a
Python int, so arithmetic and comparisons are free of device work; they also
answer the few variable methods TF programs call on them (`numpy()`,
`assign()`), which write back into the optimizer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


class LearningRateValue(float):
    """The optimizer's current learning rate: a float with `numpy()` and `assign()`."""

    def __new__(cls, value: float, optimizer: Any = None) -> LearningRateValue:
        obj = super().__new__(cls, value)
        obj._optimizer = optimizer
        return obj

    def numpy(self) -> np.float32:
        """Returns the learning rate as a numpy float32, as `tf.Variable.numpy()` does."""
        return np.float32(self)

    def assign(self, value: Any) -> LearningRateValue:
        """Sets the optimizer's learning rate to `value`; returns the new value."""
        if self._optimizer is None:
            raise ValueError("This learning-rate value is not attached to an optimizer; set optimizer.learning_rate.")
        self._optimizer.learning_rate = value
        return self._optimizer.learning_rate

    @property
    def dtype(self) -> torch.dtype:
        """The dtype of a learning-rate variable, `tf.float32` (as a `tf.Variable`'s `dtype`)."""
        return torch.float32


class IterationsValue(int):
    """The optimizer's step count: an int with `numpy()`, `assign()` and `assign_add()`."""

    def __new__(cls, value: int, optimizer: Any = None) -> IterationsValue:
        obj = super().__new__(cls, value)
        obj._optimizer = optimizer
        return obj

    def numpy(self) -> np.int64:
        """Returns the count as a numpy int64, as `tf.Variable.numpy()` does."""
        return np.int64(self)

    def assign(self, value: Any) -> IterationsValue:
        """Sets the optimizer's step count to `value`; returns the new count."""
        if self._optimizer is None:
            raise ValueError("This iterations value is not attached to an optimizer; set optimizer.iterations.")
        self._optimizer.iterations = value
        return self._optimizer.iterations

    def assign_add(self, delta: int) -> IterationsValue:
        """Adds `delta` to the optimizer's step count; returns the new count."""
        return self.assign(int(self) + int(delta))

    @property
    def dtype(self) -> torch.dtype:
        """The dtype of the iterations variable, `tf.int64` (as a `tf.Variable`'s `dtype`)."""
        return torch.int64


class CallableList(list):
    """A list that can also be called, so both `opt.variables` and `opt.variables()` work."""

    def __call__(self) -> CallableList:
        """Returns the list itself."""
        return self
