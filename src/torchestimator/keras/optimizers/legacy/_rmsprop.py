"""The update rule of `tf.keras.optimizers.legacy.RMSprop` (Keras 2.15's OptimizerV2).

Unlike the new RMSprop (`lr * g / sqrt(velocity + epsilon)` always), the legacy
class has two rules, as TF has:

- with `momentum > 0` it calls TF's `ApplyRMSProp` / `ApplyCenteredRMSProp`
  kernels: `ms += (g^2 - ms) * (1 - rho)`; centered `mg += (g - mg) * (1 - rho)`;
  `mom = momentum * mom + lr * g / sqrt(ms [- mg^2] + epsilon)`; `w -= mom`
  (epsilon inside the square root);
- with `momentum == 0` it is written in Python ops:
  `ms = rho * ms + (1 - rho) * g^2`; `w -= lr * g / (sqrt(ms [- mg^2]) + epsilon)`
  (epsilon outside the square root).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.optimizers._kernel import Tensors
from torchestimator.keras.optimizers.rmsprop import RMSpropKernel


class LegacyRMSpropKernel(RMSpropKernel):
    """`torch.optim.Optimizer` with the legacy (OptimizerV2) RMSprop rule of TF 2.15."""

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one legacy RMSprop step (TF's kernel with momentum, the Python ops without)."""
        lr, rho, epsilon, momentum = group["lr"], group["rho"], group["epsilon"], group["momentum"]
        ms = slots["velocity"]
        centered = group["centered"]
        if momentum > 0:
            # ApplyRMSProp / ApplyCenteredRMSProp (training_ops.cc), in the kernel's operation order
            torch._foreach_add_(ms, torch._foreach_mul(torch._foreach_sub(torch._foreach_mul(grads, grads), ms), 1 - rho))
            if centered:
                mg = slots["average_gradient"]
                torch._foreach_add_(mg, torch._foreach_mul(torch._foreach_sub(grads, mg), 1 - rho))
                denominators = torch._foreach_addcmul(ms, mg, mg, -1)
            else:
                denominators = torch._foreach_mul(ms, 1.0)
            torch._foreach_add_(denominators, epsilon)
            torch._foreach_sqrt_(denominators)
            moms = slots["momentum"]
            torch._foreach_mul_(moms, momentum)
            torch._foreach_add_(moms, torch._foreach_div(torch._foreach_mul(grads, lr), denominators))
            torch._foreach_sub_(params, moms)
            return
        torch._foreach_mul_(ms, rho)
        torch._foreach_add_(ms, torch._foreach_mul(torch._foreach_mul(grads, grads), 1 - rho))
        if centered:
            mg = slots["average_gradient"]
            torch._foreach_mul_(mg, rho)
            torch._foreach_add_(mg, torch._foreach_mul(grads, 1 - rho))
            denominators = torch._foreach_addcmul(ms, mg, mg, -1)
            torch._foreach_sqrt_(denominators)
        else:
            denominators = torch._foreach_sqrt(ms)
        torch._foreach_add_(denominators, epsilon)
        torch._foreach_sub_(params, torch._foreach_div(torch._foreach_mul(grads, lr), denominators))
