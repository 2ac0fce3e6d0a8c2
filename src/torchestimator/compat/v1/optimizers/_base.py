"""What every `tf.compat.v1.train.*Optimizer` shares: TF1's `minimize`, `compute_gradients`,
`apply_gradients`, `get_slot`, `get_slot_names`, and TF1's checkpoint slot names.

The TF1 optimizers are Keras optimizers of this package (so the Estimator,
`tf.group` and checkpoints treat them as any optimizer) whose update rules
are TF1's kernels (`ApplyMomentum`, `ApplyRMSProp`, ...).

Inside an Estimator's `model_fn`, TF1 built a graph whose train op ran after
`model_fn` returned; here:

- `minimize(loss, global_step=...)` returns the train op the Estimator runs
  (one backward pass, then the update of every trainable variable the loss
  depends on, or of `var_list`); in EVAL and PREDICT it is made but never run.
  `global_step` is accepted; the Estimator advances its global step.
- `compute_gradients(loss)` computes the gradients eagerly (in EVAL and
  PREDICT, where nothing records gradients, they are zeros standing in for
  the graph's gradient tensors); its default `var_list` is every trainable
  variable model_fn created (`tf.compat.v1.trainable_variables()`), with
  None for those the loss does not depend on, as TF1.
- `apply_gradients(grads_and_vars)` returns a train op that applies those
  gradients when the Estimator runs it (in EVAL/PREDICT an op that does
  nothing), so `tf.group` combines it with other ops.

Outside a `model_fn` they run eagerly as TF1's optimizers did under eager
execution: `minimize` (with a tensor or a zero-argument callable loss) and
`apply_gradients` update the variables at once and add 1 to a `global_step`
variable when one is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from torchestimator._engine.model_fn_context import current_mode, in_model_fn
from torchestimator._engine.object_scope import ReusableMeta
from torchestimator._engine.train_op import TrainOp, parameters_of
from torchestimator.compat.v1._variable_scope import trainable_variables

GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2


class V1OptimizerMeta(ReusableMeta):
    """Inside a model_fn a TF1 optimizer is made once; a learning rate given as a tensor (TF1's
    decayed learning rates, recomputed by every model_fn call) updates the reused optimizer."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        optimizer = super().__call__(*args, **kwargs)
        rate = kwargs.get("learning_rate", args[0] if args else None)
        if isinstance(rate, torch.Tensor) and optimizer._current_lr != float(rate):
            optimizer._set_learning_rate(float(rate))
        return optimizer


def _increment(global_step: Any) -> None:
    if global_step is not None and hasattr(global_step, "assign_add"):
        global_step.assign_add(1)


class V1Optimizer:
    """TF1's `tf.compat.v1.train.Optimizer` API over a Keras optimizer of this package."""

    # Kernel slot -> TF1's checkpoint name template (`<variable>/<template>`), over the
    # optimizer's name: `{name}`, `{name}_1`, ... in TF1's slot creation order.
    _v1_slot_names: dict[str, str] = {}
    # TF1's slot names (`get_slot(var, 'accum')`) -> this optimizer's kernel slot names.
    _tf1_slots: dict[str, str] = {}

    def checkpoint_slot_name(self, slot: str) -> str:
        """TF1's name of slot `slot` of a variable: `<optimizer name>`, `<optimizer name>_1`, ..."""
        return self._v1_slot_names.get(slot, "{name}_" + slot).format(name=self.name)

    def get_name(self) -> str:
        """The optimizer's name."""
        return self.name

    # --- slots ---------------------------------------------------------------------------------
    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer keeps per variable (TF1's: 'accumulator', ...),
        sorted; empty until the optimizer has variables (TF1 made slots when applying)."""
        kernel = self._kernel
        if kernel is None:
            return []
        kernel_slots = set(kernel.slot_names(kernel.param_groups[0]))
        return sorted(tf1 for tf1, own in self._tf1_slots.items() if own in kernel_slots)

    def get_slot(self, var: torch.Tensor, name: str) -> torch.Tensor | None:
        """The slot `name` (see `get_slot_names`) kept for variable `var`, or None."""
        own = self._tf1_slots.get(name)
        kernel = self._kernel
        if own is None or kernel is None or var not in kernel.state:
            return None
        return kernel.state[var].get(own)

    # --- gradients -------------------------------------------------------------------------------
    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: int = GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list[tuple[torch.Tensor | None, torch.Tensor]]:
        """Computes the gradients of `loss` (a tensor, or a zero-argument callable returning
        one) for the variables in `var_list`; returns a list of `(gradient, variable)` pairs,
        the gradient None for a variable the loss does not depend on.

        `var_list` defaults to the trainable variables: inside a model_fn every trainable
        variable it created; outside, every trainable tensor the loss depends on.
        """
        if callable(loss) and not isinstance(loss, torch.Tensor):
            with torch.enable_grad():
                loss = loss()
        if not isinstance(loss, torch.Tensor):
            raise TypeError(
                f"compute_gradients: loss must be a tensor or a callable returning one; received "
                f"{loss!r} of type {type(loss).__name__}."
            )
        if callable(var_list):
            var_list = var_list()
        mode = current_mode()
        if var_list is None:
            variables = _default_variables(loss, in_model_fn=mode is not None)
        else:
            variables = list(var_list)
        if not variables:
            raise ValueError("No variables to optimize.")
        trainable = [v for v in variables if isinstance(v, torch.Tensor) and v.requires_grad]
        if not loss.requires_grad:
            if mode is not None and mode != "train":  # the graph's gradients, never evaluated
                return [(torch.zeros_like(v), v) for v in variables]
            return [(None, v) for v in variables]
        if grad_loss is None and loss.numel() != 1:
            loss = loss.sum()
        grads: dict[int, torch.Tensor | None] = {}
        if trainable:
            outputs = None if grad_loss is None else torch.as_tensor(grad_loss, dtype=loss.dtype,
                                                                     device=loss.device)
            computed = torch.autograd.grad(loss, trainable, grad_outputs=outputs, retain_graph=True,
                                           allow_unused=True)
            grads = {id(v): g for v, g in zip(trainable, computed)}
        return [(grads.get(id(v)), v) for v in variables]

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, torch.Tensor]],
                        global_step: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        """Applies `(gradient, variable)` pairs (None gradients are skipped). Inside a model_fn
        returns the train op the Estimator runs; outside, updates at once, adds 1 to
        `global_step` (a variable) and returns None."""
        pairs = list(grads_and_vars)
        for position, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(
                    "apply_gradients() expects (gradient, variable) pairs, e.g. "
                    f"compute_gradients(loss); item {position} is {pair!r}."
                )
        present = [(g, v) for g, v in pairs if g is not None]
        if not present:
            names = [getattr(v, "name", f"variable_{i}") for i, (_, v) in enumerate(pairs)]
            raise ValueError(f"No gradients provided for any variable: {names}.")
        if in_model_fn():  # the Keras optimizer's deferred train op
            return super().apply_gradients(present)
        super().apply_gradients(present)
        _increment(global_step)
        return None

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None,
                 gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: str | None = None,
                 grad_loss: Any = None, **kwargs: Any) -> Any:
        """Adds the operations minimizing `loss` by updating `var_list` (default: every trainable
        variable the loss depends on). Inside a model_fn returns the train op (run by the
        Estimator in TRAIN only; `global_step` is advanced by the Estimator); outside, updates
        at once and adds 1 to `global_step` (a variable) when given."""
        mode = current_mode()
        if mode is not None and (mode != "train" or grad_loss is None):
            return TrainOp([(self, loss, var_list)])
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, grad_loss=grad_loss)
        if mode is None:
            grads_and_vars = [(g, v) for g, v in grads_and_vars if v.requires_grad]
            if not grads_and_vars:
                raise ValueError("No variables to optimize.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)


def _default_variables(loss: torch.Tensor, in_model_fn: bool) -> list[torch.Tensor]:
    """TF1's default var_list: the trainable variables (in a model_fn, all it created, then any
    other trainable tensor the loss depends on); outside, the trainable tensors of the loss."""

    found = [p for p in parameters_of(loss) if p.requires_grad] if loss.requires_grad else []
    if not in_model_fn:
        return found

    variables = trainable_variables()
    known = {id(v) for v in variables}
    return variables + [p for p in found if id(p) not in known]
