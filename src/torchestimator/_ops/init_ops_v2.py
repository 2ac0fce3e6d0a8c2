"""TF 2's own (non-Keras) initializer `tf.constant_initializer` (TF's `init_ops_v2.Constant`).

TF 2.15's top-level `tf.constant_initializer(value=0, support_partition=False)` is not Keras'
`tf.keras.initializers.Constant(value=0)`: called with no dtype it gives the dtype of its value
(`tf.constant_initializer(2)([2])` is int32, as `tf.constant(2, shape=[2])`), it accepts
strings, and it refuses the `partition_shape` / `partition_offset` keywords of a sharded
variable's creator unless built with `support_partition=True`. Keras layers, `tf.Variable`,
`tf.compat.v1.get_variable` and the feature columns take it as any initializer callable
`(shape, dtype=None)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from torchestimator._ops.convert import constant

_PARTITION_SHAPE = "partition_shape"
_PARTITION_OFFSET = "partition_offset"


class Initializer:
    """TF 2's initializer base class (`init_ops_v2.Initializer`): called as
    `init(shape, dtype=None, **kwargs)`, where the only keywords are `partition_shape` and
    `partition_offset`."""

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        """Returns a tensor of `shape` and `dtype` initialized as the initializer says."""
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        """The initializer's configuration as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        """An initializer built from `get_config()`'s dict (a `dtype` key is dropped, as TF's)."""
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)

    def _validate_kwargs(self, kwargs: dict[str, Any], support_partition: bool = True) -> None:
        for kwarg in kwargs:
            if kwarg not in (_PARTITION_SHAPE, _PARTITION_OFFSET):
                raise TypeError(
                    f"Keyword argument should be one of {[_PARTITION_SHAPE, _PARTITION_OFFSET]}. "
                    f"Received: {kwarg}")
            if not support_partition:
                raise ValueError(
                    f"{type(self).__name__} initializer doesn't support partition-related arguments")


class Constant(Initializer):
    """Initializer that generates tensors with constant values (TF's `tf.constant_initializer`).

    Args:
        value: A Python scalar, a list or tuple of values, or a numpy array. A scalar (or a
            one-element value) fills the requested shape; otherwise the value must have exactly
            as many elements as the shape, and is reshaped to it (a TypeError otherwise).
        support_partition: Whether calls may pass `partition_shape` / `partition_offset` (TF's
            sharded-variable arguments; the value is still the constant of `shape`). When False
            such a call raises ValueError.

    Raises:
        TypeError: `value` is not a Python scalar, list, tuple or numpy array (a tensor, None).
    """

    def __init__(self, value: Any = 0, support_partition: bool = False) -> None:
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(
                f"Invalid type for initial value: {type(value).__name__}. Expected "
                "Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        """`tf.constant(value, dtype=dtype, shape=shape)`: dtype None is the value's own (float32
        for a Python float, int32 for a Python int, a numpy array's dtype).

        Raises:
            TypeError: a keyword other than `partition_shape` / `partition_offset`, or a value
                whose number of elements neither is 1 nor matches `shape`.
            ValueError: a partition keyword while `support_partition` is False.
        """
        self._validate_kwargs(kwargs, support_partition=self.support_partition)
        return constant(self.value, dtype=dtype, shape=shape)

    def get_config(self) -> dict[str, Any]:
        """`{"value": value}` (as TF's: `support_partition` is not part of it)."""
        return {"value": self.value}

    def __repr__(self) -> str:
        return f"Constant(value={self.value!r}, support_partition={self.support_partition!r})"


constant_initializer = Constant
