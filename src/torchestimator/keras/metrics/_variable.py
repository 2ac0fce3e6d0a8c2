"""`StateVariable`: a metric's state tensor, with TF Variable-style `assign*` methods.

It is a real `torch.Tensor` (results of arithmetic on it are plain tensors),
so `result()` code reads it like any tensor, while `update_state()` code
written for TensorFlow (`self.total.assign_add(x)`) runs unchanged. Updates
run without autograd and never read a value back to the host. When a value
arrives on another device, the variable moves there first: metric state
follows the inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._torch_private import disabled_torch_function_impl


class StateVariable(torch.Tensor):
    """A metric state tensor that supports `assign`, `assign_add`, `assign_sub` and `numpy()`."""

    __torch_function__ = disabled_torch_function_impl

    @staticmethod
    def __new__(cls, data: torch.Tensor, name: str = "variable") -> StateVariable:
        obj = torch.Tensor._make_subclass(cls, data.detach(), False)
        obj._var_name = name
        return obj

    @property
    def name(self) -> str:  # type: ignore[override]
        """The variable's name, e.g. 'total'."""
        return self._var_name

    def _value_for(self, value: Any) -> torch.Tensor | float | int | bool:
        """Returns `value` ready to combine with this variable, moving the variable if needed."""
        if isinstance(value, torch.Tensor):
            if value.device != self.device and not (
                value.dim() == 0 and value.device.type == "cpu"
            ):
                self.move_to(value.device)
            return value if value.dtype == self.dtype else value.to(self.dtype)
        if isinstance(value, (int, float, bool)):
            return value
        return self._value_for(torch.as_tensor(np.asarray(value)))

    def move_to(self, device: Any) -> StateVariable:
        """Moves the variable's storage to `device` in place (same object). Returns it."""
        device = torch.device(device)
        if self.device != device:
            with torch.inference_mode(False):
                moved = self.detach().to(device)
                if torch._has_compatible_shallow_copy_type(self, moved):
                    self.data = moved  # CPU <-> CUDA and other dense backends: swap the storage.
                else:  # e.g. the meta device: swap the whole tensor, keeping this Python object.
                    torch.utils.swap_tensors(self, StateVariable(moved, self._var_name))
        return self

    def assign(self, value: Any) -> StateVariable:
        """Sets the variable to `value` (broadcast to its shape). Returns the variable."""
        value = self._value_for(value)
        with torch.no_grad():
            if isinstance(value, torch.Tensor):
                self.copy_(value)
            else:
                self.fill_(value)
        return self

    def assign_add(self, value: Any) -> StateVariable:
        """Adds `value` to the variable in place. Returns the variable."""
        value = self._value_for(value)
        if torch.is_grad_enabled():
            with torch.no_grad():
                self.add_(value)
        else:
            self.add_(value)
        return self

    def assign_sub(self, value: Any) -> StateVariable:
        """Subtracts `value` from the variable in place. Returns the variable."""
        value = self._value_for(value)
        with torch.no_grad():
            self.sub_(value)
        return self

    def value(self) -> torch.Tensor:
        """Returns a plain tensor copy of the current value."""
        return self.detach().clone().as_subclass(torch.Tensor)

    read_value = value

    def numpy(self) -> np.ndarray:  # type: ignore[override]
        """Returns the current value as a numpy array (copied to the host)."""
        return self.detach().cpu().as_subclass(torch.Tensor).numpy().copy()

    def __deepcopy__(self, memo: dict) -> StateVariable:
        return StateVariable(self.detach().clone(), self._var_name)

    def __reduce_ex__(self, protocol: int):
        return (_rebuild, (self.detach().cpu().as_subclass(torch.Tensor).clone(), self._var_name))

    def __repr__(self) -> str:
        value = self.detach().as_subclass(torch.Tensor)
        return f"<StateVariable '{self._var_name}' shape={tuple(self.shape)} value={value}>"


def _rebuild(data: torch.Tensor, name: str) -> StateVariable:
    return StateVariable(data, name)
