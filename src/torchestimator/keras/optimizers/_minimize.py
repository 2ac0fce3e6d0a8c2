"""`Optimizer.compute_gradients` and `minimize`: gradients with torch autograd, and the
deferred train op inside an Estimator's `model_fn`."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.model_fn_context import in_model_fn
from torchestimator._engine.train_op import TrainOp


class MinimizeMixin:
    """`compute_gradients` and `minimize` of `tf.keras.optimizers.Optimizer` (uses the
    optimizer's `_vars` and `apply_gradients`)."""

    def compute_gradients(
        self, loss: Any, var_list: Any, tape: Any = None
    ) -> list[tuple[torch.Tensor | None, torch.Tensor]]:
        """Computes the gradients of `loss` on `var_list` with torch autograd.

        `loss` is a tensor or a zero-argument callable returning one (a
        non-scalar loss is summed, as TF's gradient does); `var_list` is a list
        of variables or a zero-argument callable returning one (called after
        `loss`). `tape` is accepted for compatibility and not needed. Returns
        `(gradient, variable)` pairs; the gradient is None for a variable the
        loss does not depend on.
        """
        if callable(loss) and not isinstance(loss, torch.Tensor):
            with torch.enable_grad():
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        if var_list is None:
            if not self._vars:
                raise ValueError(
                    f"{type(self).__name__}.minimize() needs `var_list`: pass the variables to train, "
                    "e.g. model.trainable_variables."
                )
            var_list = list(self._vars)
        variables = list(var_list)
        if not isinstance(loss, torch.Tensor):
            raise ValueError(
                f"The loss must be a torch tensor (or a callable returning one) computed from the "
                f"variables. Received: loss={loss!r} of type {type(loss).__name__}."
            )
        if loss.numel() != 1:
            loss = loss.sum()
        trainable = [v for v in variables if isinstance(v, torch.Tensor) and v.requires_grad]
        grads: dict[int, torch.Tensor | None] = {}
        if trainable and loss.requires_grad:
            computed = torch.autograd.grad(loss.reshape(()), trainable, allow_unused=True)
            grads = {id(v): g for v, g in zip(trainable, computed)}
        return [(grads.get(id(v)), v) for v in variables]

    def minimize(self, loss: Any, var_list: Any = None, tape: Any = None) -> Any:
        """Minimizes `loss` by updating `var_list` (see `compute_gradients`); returns the new `iterations`.

        Inside an Estimator's `model_fn` the update is deferred: it returns the train op the
        Estimator runs after model_fn returns (in TRAIN mode only; in EVAL/PREDICT it is never
        run); with no `var_list` it updates every trainable weight the loss depends on.
        """
        if in_model_fn():  # the train op the Estimator runs after model_fn returns
            return TrainOp([(self, loss, var_list)])
        return self.apply_gradients(self.compute_gradients(loss, var_list, tape))
