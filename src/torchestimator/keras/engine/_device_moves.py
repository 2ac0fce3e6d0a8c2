"""Where a Keras model's steps run and in what precision: the device of each `fit`/`evaluate`/
`predict` call (an open `tf.device` block, else the first call's), moving a compiled model there
between calls (weights, buffers and optimizer state move in place, so the optimizer keeps
updating the model's own weights), and the mixed-precision context around the steps."""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from torchestimator._engine import loop
from torchestimator._ops.control_ops._context import scoped_device
from torchestimator.keras.mixed_precision._autocast import model_precision
from torchestimator.keras.mixed_precision._grad_scaler import grad_scaler, needs_grad_scaler


def _move_in_place(tensor: torch.Tensor, device: torch.device) -> None:
    """Moves `tensor` to `device` keeping the Python object (whoever holds it sees it moved)."""
    if tensor.device == device:
        return
    moved = tensor.data.to(device)
    try:
        tensor.data = moved  # between the CPU and CUDA: the same object, its data moved
    except RuntimeError:  # tensor types `set_data` cannot swap (e.g. the lazy backend's)
        if isinstance(tensor, torch.nn.Parameter):
            replacement = torch.nn.Parameter(moved, requires_grad=tensor.requires_grad)
        else:
            replacement = moved.requires_grad_(tensor.requires_grad)
        replacement.__class__ = type(tensor)
        replacement.__dict__.update(tensor.__dict__)
        torch.utils.swap_tensors(tensor, replacement)


def move_training_state(model: Any, device: torch.device) -> None:
    """Moves `model`'s weights to `device` keeping each Parameter object (the optimizer holds
    them; `Module.to` makes new ones between some devices), and its optimizer's state (slots,
    EMA copies, extra variables) with them; torch's `step` counters stay where they are."""
    with torch.no_grad():
        for parameter in model.parameters():
            _move_in_place(parameter, device)
        model.to(device)  # the buffers
        optimizer = model.optimizer
        if optimizer is None:
            return
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer
        kernel = getattr(optimizer, "_kernel", None)  # a Keras optimizer's update rule
        if kernel is None:
            kernel = getattr(optimizer, "optimizer", optimizer)  # a TorchOptimizer's torch optimizer
        for state in getattr(kernel, "state", {}).values():
            for name, value in state.items():
                # torch keeps a `step` count on the host unless the optimizer is capturable/fused
                if isinstance(value, torch.Tensor) and (name != "step" or value.device.type != "cpu"):
                    _move_in_place(value, device)
        invalidate = getattr(kernel, "invalidate_cache", None)
        if invalidate is not None:
            invalidate()  # the slot lists and flat views it cached
        for attribute in ("_ema", "_extra_variables"):
            for tensor in getattr(optimizer, attribute, None) or ():
                if isinstance(tensor, torch.Tensor) and tensor.is_floating_point():
                    _move_in_place(tensor, device)


class StepPlacement:
    """The device and mixed-precision context of a `Trainer`'s calls (a mixin of `Model`)."""

    def _training_device(self) -> torch.device:
        """Where the steps of this call run: the innermost open `tf.device` block's device (each
        call reads it: `with tf.device('/cpu:0'): model.fit(...)` after a fit elsewhere trains
        on the CPU), else the device chosen by the first call (`loop.default_device()`)."""
        scoped = scoped_device()
        if scoped is not None:
            return scoped
        if self._device is None:
            self._device = loop.default_device()
        return self._device

    @contextlib.contextmanager
    def _mixed_precision(self, device: torch.device) -> Any:
        """Around the steps of `fit`, `evaluate` or `predict` on `device`: under a mixed policy
        each step's forward pass runs under `torch.autocast` (see `_forward`); nested calls
        (`evaluate` of fit's validation, a callback's `predict`) keep the outer one's."""
        if self._step_autocast is not None:
            yield
            return
        with model_precision(self, device) as autocast:
            self._step_autocast = autocast
            if (self._grad_scaler is None or self._grad_scaler[0] != device.type) and needs_grad_scaler(self):
                self._grad_scaler = grad_scaler(self.optimizer, device)
            try:
                yield
            finally:
                self._step_autocast = None

    def _place(self) -> torch.device:
        device = self._training_device()
        first = next(iter(self.parameters()), None)
        if first is not None and first.device != device:
            move_training_state(self, device)
            if self.optimizer is not None and getattr(self.optimizer, "_built", False):
                self.optimizer.build(self.trainable_weights)
        self._build_device = device
        return device
