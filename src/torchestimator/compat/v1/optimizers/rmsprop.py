"""TF1's `RMSPropOptimizer` (`ApplyRMSProp`, `ApplyCenteredRMSProp`). Unlike Keras, the mean
square starts at ONE and the momentum slot always exists (it accumulates the scaled step):

    ms = decay * ms + (1 - decay) * grad^2
    (centered: mg = decay * mg + (1 - decay) * grad; denominator = ms - mg^2 + epsilon)
    mom = momentum * mom + learning_rate * grad / sqrt(ms + epsilon)      (epsilon inside)
    var -= mom

Slots in TF1's creation order: `rms`, (`mg`,) `momentum`, saved as `<var>/RMSProp`,
`<var>/RMSProp_1`, ...
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers._args import _number
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer


class RMSPropKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF1's RMSProp rule (slots `rms`, `mg` when centered,
    `momentum`)."""

    def __init__(self, params: Any, lr: float = 0.001, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, centered: bool = False) -> None:
        super().__init__(params, {"lr": lr, "decay": decay, "momentum": momentum,
                                  "epsilon": epsilon, "centered": centered})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`rms`, `mg` (centered only), `momentum`."""
        return ("rms", "mg", "momentum") if group["centered"] else ("rms", "momentum")

    def initial_slot_value(self, name: str, group: dict[str, Any]) -> float:
        """TF1 starts the mean square `rms` at 1, the others at 0."""
        return 1.0 if name == "rms" else 0.0

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors,
               slots: dict[str, Tensors], step: int) -> None:
        """Applies one TF1 RMSProp step."""
        lr, decay, epsilon = group["lr"], group["decay"], group["epsilon"]
        ms = slots["rms"]
        torch._foreach_mul_(ms, decay)
        torch._foreach_addcmul_(ms, grads, grads, 1 - decay)
        if group["centered"]:
            mg = slots["mg"]
            torch._foreach_mul_(mg, decay)
            torch._foreach_add_(mg, grads, alpha=1 - decay)
            denominators = torch._foreach_addcmul(ms, mg, mg, -1)
            torch._foreach_add_(denominators, epsilon)
        else:
            denominators = torch._foreach_add(ms, epsilon)
        torch._foreach_sqrt_(denominators)
        moms = slots["momentum"]
        torch._foreach_mul_(moms, group["momentum"])
        torch._foreach_addcdiv_(moms, grads, denominators, value=lr)
        torch._foreach_sub_(params, moms)


class RMSPropOptimizer(V1Optimizer, Optimizer, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.RMSPropOptimizer(learning_rate, decay=0.9, momentum=0.0,
    epsilon=1e-10, use_locking=False, centered=False, name='RMSProp')`."""

    _kernel_class = RMSPropKernel
    _slot_layout = (("rms", "mg", "momentum"),)
    _tf1_slots = {"rms": "rms", "mg": "mg", "momentum": "momentum"}

    def __init__(self, learning_rate: Any, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp"):
        super().__init__(name=name)
        self._build_learning_rate(learning_rate)
        owner = type(self).__name__
        self.decay_rate = _number(decay, "decay", owner)
        self.momentum = _number(momentum, "momentum", owner)
        self.epsilon = _number(epsilon, "epsilon", owner)
        self.centered = bool(centered)
        if self.centered:
            self._v1_slot_names = {"rms": "{name}", "mg": "{name}_1", "momentum": "{name}_2"}
        else:
            self._v1_slot_names = {"rms": "{name}", "momentum": "{name}_1"}

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"decay": self.decay_rate, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments: learning_rate, decay, momentum, epsilon, centered, name."""
        return {"learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "decay": self.decay_rate, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered, "name": self.name}
