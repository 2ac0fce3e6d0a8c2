"""Where a Keras model's steps run and in what precision: the device of each `fit`/`evaluate`/
`predict` call (an open `tf.device` block, else the first call's), moving a compiled model there
between calls (weights, buffers and optimizer state move in place, so the optimizer keeps
updating the model's own weights), and the mixed-precision context around the steps."""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from torchestimator._engine import loop, precision
from torchestimator._engine.device_moves import OptimizerState, move_in_place
from torchestimator._engine.device_moves import move_training_state as _move_training_state
from torchestimator._ops.control_ops._context import scoped_device
from torchestimator.keras.mixed_precision._autocast import model_precision
from torchestimator.keras.mixed_precision._grad_scaler import grad_scaler, needs_grad_scaler


def keras_optimizer_state(optimizer: Any) -> OptimizerState:
    """What of a Keras optimizer (or a `LossScaleOptimizer`, or a `TorchOptimizer` wrapping a
    torch optimizer) moves with its weights: its update rule's per-variable slots (the rule's
    slot caches dropped when they moved), its EMA copies and extra variables."""
    optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer
    kernel = getattr(optimizer, "_kernel", None)  # a Keras optimizer's update rule
    if kernel is None:
        kernel = getattr(optimizer, "optimizer", optimizer)  # a TorchOptimizer's torch optimizer
    tensors = [
        tensor for attribute in ("_ema", "_extra_variables")
        for tensor in getattr(optimizer, attribute, None) or ()
    ]
    return OptimizerState(getattr(kernel, "state", {}), tensors,
                          getattr(kernel, "invalidate_cache", None))  # the slot lists and flat views it cached


_move_in_place = move_in_place  # its name here before it moved down to `_engine.device_moves`


def move_training_state(model: Any, device: torch.device) -> None:
    """Moves `model`'s weights to `device` keeping each Parameter object (the optimizer holds
    them; `Module.to` makes new ones between some devices), and its optimizer's state (slots,
    EMA copies, extra variables) with them; torch's `step` counters stay where they are."""
    _move_training_state([model], [model.optimizer], device, keras_optimizer_state)


@contextlib.contextmanager
def _own_precision(model: Any, device: torch.device) -> Any:
    """A mixed model's call outside its steps: under its autocast, its float32 layers exempt."""
    with model_precision(model, device) as forward_context:
        if forward_context is None:
            yield
            return
        with forward_context():
            yield


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

    def _top_level_precision(self, inputs: Any) -> contextlib.AbstractContextManager | None:
        """The autocast a top-level call of this model under a mixed policy runs in when none is
        on yet -- `self(x, training=True)` in a custom `train_step`, a custom training loop --
        as in TF, where the layers' compute dtype applies whoever calls them: the steps'
        autocast while `fit`/`evaluate`/`predict` run (their float32 layers exempt already),
        else the model's own (`model_precision`: its float32 layers exempt for the call).
        None when the policy is not mixed, torch has no autocast for the device (the inputs',
        else the weights') or one is on already (the library's own step, a model_fn)."""
        if isinstance(inputs, torch.Tensor):
            device = inputs.device
        else:
            weight = next(self.parameters(), None)
            if weight is None:
                return None
            device = weight.device
        if not self._autocasts_on(device):
            return None
        step_context = self._step_autocast
        if step_context is not None:
            return step_context()
        return _own_precision(self, device)

    def _autocasts_on(self, device: torch.device) -> bool:
        """Whether a call of this model on `device` must open its autocast: its policy is mixed,
        torch has an autocast for the device and compute dtype, and none is on already."""
        name = self._dtype_policy_name
        if not (isinstance(name, str) and name.startswith("mixed_")):
            return False
        dtype = precision.compute_dtype(self._compute_dtype)
        if dtype is None or not precision.autocast_supported(device.type, dtype):
            return False
        return not torch.is_autocast_enabled(device.type)

    def _build_precision(self) -> contextlib.AbstractContextManager:
        """The context of the CPU trace that builds a subclassed model's weights: its own
        autocast under a mixed policy (a layer's `inputs @ self.w` builds as it will run)."""
        cpu = torch.device("cpu")
        return _own_precision(self, cpu) if self._autocasts_on(cpu) else contextlib.nullcontext()

    def _place(self) -> torch.device:
        device = self._training_device()
        first = next(iter(self.parameters()), None)
        if first is not None and first.device != device:
            move_training_state(self, device)
            if self.optimizer is not None and getattr(self.optimizer, "_built", False):
                self.optimizer.build(self.trainable_weights)
        self._build_device = device
        return device
