"""Argument checks shared by the rest of tf.nn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from torchestimator._ops.nn_ops._common import Tensor


def _ints(value: Any, op: str, arg: str) -> list[int]:
    if isinstance(value, (Tensor, np.ndarray)):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    try:
        return [int(v) for v in value]
    except TypeError:
        raise TypeError(f"{op}: `{arg}` must be a list of integers, got {value!r}.") from None


# ----------------------------------------------------------------------------- convolutions
