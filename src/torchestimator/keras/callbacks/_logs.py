"""Turning callback logs into Python values, with as few device syncs as possible.

The training engine may hand callbacks logs whose values are 0-dim torch
tensors still being computed on the device. Reading one forces the host to
wait for the device, so logs are read only where a value is needed, and then
all of a dict's tensors on one device are read with a single copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator.keras._io_utils import print_msg as _print_msg

_PLAIN = (float, int, str, bool, type(None))  # log values that need no reading


def to_python(logs: Mapping[str, Any] | None) -> dict[str, Any]:
    """Returns a copy of `logs` with tensors and NumPy scalars as Python numbers.

    0-dim (one-element) tensors become Python floats (ints for integer
    tensors), larger tensors NumPy arrays, NumPy scalars Python numbers; other
    values are kept. Floating scalars on one device are copied in one go.
    """
    if not logs:
        return {}
    out = dict(logs)
    if all(type(value) in _PLAIN for value in out.values()):
        return out  # already Python numbers (fit's epoch logs): nothing to read
    groups: dict[torch.device, list[str]] = {}
    for key, value in out.items():
        if isinstance(value, torch.Tensor):
            if value.numel() == 1 and value.is_floating_point():
                groups.setdefault(value.device, []).append(key)
            else:
                out[key] = to_number(value)
        elif isinstance(value, (np.ndarray, np.generic)):
            out[key] = to_number(value)
    for keys in groups.values():
        if len(keys) == 1:
            out[keys[0]] = to_number(out[keys[0]])
            continue
        stacked = torch.stack([out[k].detach().reshape(()).double() for k in keys]).tolist()
        out.update(zip(keys, stacked))
    return out


def to_number(value: Any) -> Any:
    """Returns `value` as a Python number when it is a one-element tensor or NumPy scalar.

    Larger tensors become NumPy arrays; anything else is returned unchanged.
    """
    if isinstance(value, torch.Tensor):
        value = value.detach()
        if value.numel() == 1:
            return value.reshape(()).item()
        return value.cpu().numpy()
    if isinstance(value, np.ndarray) and value.ndim == 0 or isinstance(value, np.generic):
        return value.item()
    return value


def print_msg(message: str) -> None:
    """Prints a callback's message on its own line of stdout (as Keras' `io_utils.print_msg`;
    logged instead when interactive logging is disabled)."""
    _print_msg(message)
