"""tf.math's comparisons and logical ops (strings compare as TF's do)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from torchestimator._ops.convert import shapes_error
from torchestimator._ops.math_ops._common import _ANY, _ONLY_BOOL, _REAL, Tensor, _binary, _unary


# --------------------------------------------------------------------------------------------
# comparisons and logic
# --------------------------------------------------------------------------------------------
def _string_compare(np_fn: Callable, op: str) -> Callable:
    def compare(x: np.ndarray, y: np.ndarray) -> Tensor:
        try:
            return torch.from_numpy(np.asarray(np_fn(x, y), dtype=np.bool_))
        except ValueError:
            raise shapes_error(op, np.shape(x), np.shape(y)) from None

    return compare


equal = _binary(torch.eq, "equal", _ANY, True,
                "Returns the truth value of (x == y) element-wise, with broadcasting (TF's "
                "`tf.math.equal`; strings compare too).",
                strings=_string_compare(np.equal, "equal"))
not_equal = _binary(torch.ne, "not_equal", _ANY, True,
                    "Returns the truth value of (x != y) element-wise, with broadcasting (TF's "
                    "`tf.math.not_equal`; strings compare too).",
                    strings=_string_compare(np.not_equal, "not_equal"))
less = _binary(torch.lt, "less", _REAL, True,
               "Returns the truth value of (x < y) element-wise (TF's `tf.math.less`).")
less_equal = _binary(torch.le, "less_equal", _REAL, True,
                     "Returns the truth value of (x <= y) element-wise (TF's "
                     "`tf.math.less_equal`).")
greater = _binary(torch.gt, "greater", _REAL, True,
                  "Returns the truth value of (x > y) element-wise (TF's `tf.math.greater`).")
greater_equal = _binary(torch.ge, "greater_equal", _REAL, True,
                        "Returns the truth value of (x >= y) element-wise (TF's "
                        "`tf.math.greater_equal`).")
logical_and = _binary(torch.logical_and, "logical_and", _ONLY_BOOL, False,
                      "Returns the truth value of x AND y element-wise; bool tensors only (TF's "
                      "`tf.math.logical_and`).")
logical_or = _binary(torch.logical_or, "logical_or", _ONLY_BOOL, False,
                     "Returns the truth value of x OR y element-wise; bool tensors only (TF's "
                     "`tf.math.logical_or`).")
logical_xor = _binary(torch.logical_xor, "logical_xor", _ONLY_BOOL, False,
                      "Returns the truth value of x XOR y element-wise; bool tensors only (TF's "
                      "`tf.math.logical_xor`).")
logical_not = _unary(torch.logical_not, "logical_not", _ONLY_BOOL,
                     "Returns the truth value of NOT x element-wise; bool tensors only (TF's "
                     "`tf.math.logical_not`).")
