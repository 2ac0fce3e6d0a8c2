"""`tf.bitwise`: `bitwise_and`, `bitwise_or`, `bitwise_xor`, `invert`, `left_shift`, `right_shift`."""

from torchestimator._ops.bitwise_ops import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

# Last: tf.bitwise ops given symbolic Keras tensors record TFOpLambda layers (_ops/symbolic_dispatch.py)
from torchestimator._ops.symbolic_dispatch import wrap_namespace as _wrap_namespace  # noqa: E402

_wrap_namespace(globals(), "bitwise")
