"""`tf.keras.optimizers.Optimizer`: the base of Keras 2.15's optimizers, on PyTorch.

An optimizer is created before the model's variables exist; `build(var_list)`
registers torch parameters (and creates the slots of the update rule, held
by a `torch.optim.Optimizer` "kernel", see `_kernel.py`). Training engines
call `step()` after `loss.backward()`; TF programs call `apply_gradients()`
or `minimize()`. One update does what Keras 2.15 does, in its order: the
learning rate (schedule) at `iterations`, gradient clipping, decoupled
weight decay, the update rule, the moving average of the weights (EMA),
`iterations += 1`, then each variable's constraint.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import torch

from torchestimator._engine import gradient_sync
from torchestimator._engine.gradient_sync import GradientSync
from torchestimator._engine.model_fn_context import current_mode
from torchestimator._engine.object_scope import ReusableMeta
from torchestimator._engine.train_op import TrainOp
from torchestimator._ops.control_ops import NoOp
from torchestimator._ops.control_ops._context import creation_device
from torchestimator.keras.optimizers import _clipping, _sparse
from torchestimator.keras.optimizers._args import _non_negative, _number, _var_name
from torchestimator.keras.optimizers._checkpoint import CheckpointMixin
from torchestimator.keras.optimizers._config import ConfigMixin
from torchestimator.keras.optimizers._kernel import TorchKernel, dense_grads
from torchestimator.keras.optimizers._learning_rate import LearningRateMixin
from torchestimator.keras.optimizers._minimize import MinimizeMixin
from torchestimator.keras.optimizers._slots import SlotsMixin
from torchestimator.keras.optimizers._values import IterationsValue
from torchestimator.train._object_graph import register_keras_class

_LEGACY_ONLY_KWARGS = ("decay", "gradient_aggregator", "gradient_transformers")

_current_sync = gradient_sync.current  # the GradientSync of an open strategy.run / training scope


class _GradientCarrier(torch.autograd.Function):
    """A zero scalar whose backward returns given gradients for given variables: the loss of
    a deferred `apply_gradients()` train op (backward puts the gradients in `.grad`)."""

    @staticmethod
    def forward(ctx: Any, grads: tuple, *variables: torch.Tensor) -> torch.Tensor:
        ctx.grads = grads
        return torch.zeros((), device=variables[0].device)

    @staticmethod
    def backward(ctx: Any, _: torch.Tensor) -> tuple:
        grads = ctx.grads
        ctx.grads = None
        return (None, *grads)


class Optimizer(LearningRateMixin, CheckpointMixin, MinimizeMixin, ConfigMixin, SlotsMixin,
                metaclass=ReusableMeta):
    """Abstract optimizer base class (Keras 2.15's `tf.keras.optimizers.Optimizer`).

    Args:
      name: The name of the optimizer (its class name by default).
      weight_decay: Float or None. If set, decoupled weight decay is applied
        before each update: `w -= w * weight_decay * learning_rate`.
      clipnorm: Float. If set, the gradient of each weight is individually
        clipped so that its norm is no higher than this value.
      clipvalue: Float. If set, the gradient of each weight is clipped to be
        no higher than this value.
      global_clipnorm: Float. If set, the gradient of all weights is clipped so
        that their global norm is no higher than this value.
      use_ema: If True, an exponential moving average (EMA) of the weights is
        kept: `average = ema_momentum * average + (1 - ema_momentum) * w`.
      ema_momentum: Float in [0, 1]; the EMA momentum. Defaults to 0.99.
      ema_overwrite_frequency: Int or None. Every this many iterations the
        weights are overwritten by their average; if None, only
        `finalize_variable_values()` does it.
      jit_compile: Accepted for compatibility; the update is always a few
        fused multi-tensor kernels.

    Write your own optimizer by subclassing this class and implementing
    `build(var_list)` (call `super().build(var_list)`, then create slots with
    `add_variable_from_reference`), `update_step(gradient, variable)` (update
    `variable` in place with torch operations) and `get_config()`.
    """

    _kernel_class: type[TorchKernel] | None = None
    # Keras' creation order of the slot variables: each tuple is interleaved per variable.
    _slot_layout: tuple[tuple[str, ...], ...] = ()
    # Slot names that differ in a TF checkpoint (the legacy optimizers' names), by slot name here.
    _checkpoint_slot_names: dict[str, str] = {}
    _keras_module = "keras.optimizers"
    # How a sparse (IndexedSlices-like) gradient is applied: "dense", "lazy" or "rows" (see _sparse.py).
    _sparse_rule = "dense"

    def __init__(
        self,
        name: str,
        weight_decay: float | None = 0,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        **kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        if self._kernel_class is None and type(self).update_step is Optimizer.update_step:
            raise TypeError(
                f"Can't instantiate optimizer {owner}: a subclass of tf.keras.optimizers.Optimizer must "
                "implement update_step(gradient, variable) (and build(var_list) to create its slots)."
            )
        self.name = name
        self.weight_decay = _non_negative(weight_decay, "weight_decay", owner)
        self.clipnorm = _non_negative(clipnorm, "clipnorm", owner)
        self.clipvalue = _non_negative(clipvalue, "clipvalue", owner)
        self.global_clipnorm = _non_negative(global_clipnorm, "global_clipnorm", owner)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(
                "At most one of `clipnorm` and `global_clipnorm` can be set. Received: "
                f"clipnorm={clipnorm}, global_clipnorm={global_clipnorm}."
            )
        self.use_ema = bool(use_ema)
        ema_momentum = _number(ema_momentum, "ema_momentum", owner)
        if self.use_ema:
            if not 0 <= ema_momentum <= 1:
                raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
            if ema_overwrite_frequency and (
                not isinstance(ema_overwrite_frequency, int) or ema_overwrite_frequency < 1
            ):
                raise ValueError(
                    "`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                    f"ema_overwrite_frequency={ema_overwrite_frequency}"
                )
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.jit_compile = bool(jit_compile) and torch.cuda.is_available()
        self._lr_kwarg = self._process_kwargs(kwargs)

        self._iterations = 0
        self._vars: list[torch.Tensor] = []
        self._index_dict: dict[int, int] = {}
        self._kernel: TorchKernel | None = None
        self._group: dict[str, Any] | None = None
        self._ema: list[torch.Tensor] = []
        self._constraints: list[tuple[torch.Tensor, Callable]] = []
        self._decay_vars: list[torch.Tensor] = []
        self._exclude_ids: set[int] = set()
        self._exclude_names: list[str] = []
        self._pending: dict[int, dict[str, Any]] = {}
        self._extra_variables: list[torch.Tensor] = []
        self._learning_rate: Any = 0.0
        self._lr_fn: Callable[[int], float] | None = None
        self._current_lr = 0.0
        self._legacy_decay = 0.0

    def _process_kwargs(self, kwargs: dict[str, Any]) -> Any:
        """Validates the extra keyword arguments; returns a deprecated `lr` if given."""
        kwargs.pop("is_legacy_optimizer", None)
        mesh = kwargs.pop("mesh", None)
        if mesh is not None:
            raise ValueError(f"{type(self).__name__}: `mesh` (DTensor) is not supported; use tf.distribute strategies.")
        lr = kwargs.pop("lr", None)
        for key in kwargs:
            if key in _LEGACY_ONLY_KWARGS:
                raise ValueError(
                    f"{key} is deprecated in the new Keras optimizer, please check the docstring for valid "
                    "arguments, or use the legacy optimizer, e.g., "
                    f"tf.keras.optimizers.legacy.{type(self).__name__}."
                )
            raise TypeError(
                f"{key} is not a valid argument of {type(self).__name__}; kwargs should be empty for "
                "`tf.keras.optimizers.Optimizer`."
            )
        if lr is not None:
            warnings.warn(
                "`lr` is deprecated in Keras optimizer, please use `learning_rate` instead.",
                UserWarning,
                stacklevel=4,
            )
        return lr

    # --- variables -------------------------------------------------------------------------------

    def _var_key(self, variable: torch.Tensor) -> int:
        """Returns the key of `variable` in `self._index_dict` (its position in build order)."""
        return id(variable)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        """Returns the keyword arguments of the kernel besides `lr` (built-in optimizers override)."""
        return {}

    def build(self, var_list: Iterable[torch.Tensor]) -> None:
        """Registers the variables to train and creates the optimizer's slots for them.

        Idempotent: variables already registered are skipped, new ones are
        appended (their slots created, and any state loaded earlier by
        `load_state_dict` restored).
        """
        new: list[torch.Tensor] = []
        for position, variable in enumerate(var_list):
            if not isinstance(variable, torch.Tensor):
                raise TypeError(
                    f"{type(self).__name__}.build() expects torch tensors (nn.Parameter); item {position} "
                    f"of var_list is {type(variable).__name__}: {variable!r}."
                )
            if id(variable) in self._index_dict:
                continue
            if not variable.is_floating_point():
                raise TypeError(
                    f"{type(self).__name__} can only train floating-point variables; "
                    f"{_var_name(variable, position)} has dtype {variable.dtype}."
                )
            self._index_dict[id(variable)] = len(self._vars)
            self._vars.append(variable)
            new.append(variable)
        if not new:
            return
        if self._kernel_class is not None:
            if self._kernel is None:
                self._kernel = self._kernel_class(new, lr=self._current_lr, **self._kernel_hyperparameters())
                self._group = self._kernel.param_groups[0]
                self._kernel.iterations = self._iterations
            else:
                self._kernel.add_params(new)
        if self.use_ema:
            self._ema.extend(v.detach().clone() for v in new)
        for v in new:
            constraint = getattr(v, "_keras_constraint", None)
            if constraint is not None:
                self._constraints.append((v, constraint))
            if self._use_weight_decay(v):
                self._decay_vars.append(v)
        if self._pending:
            for v in new:
                index = self._index_dict[id(v)]
                if index in self._pending:
                    self._restore_variable(index, self._pending.pop(index))
        if self._kernel_class is not None:
            self._built = True

    def add_variable_from_reference(
        self,
        model_variable: torch.Tensor,
        variable_name: str,
        shape: Any = None,
        initial_value: Any = None,
    ) -> torch.Tensor:
        """Creates an optimizer variable (a slot) shaped like `model_variable`; returns it.

        It is zeros unless `initial_value` is given, on the device and with the
        dtype of `model_variable`.
        """
        if initial_value is None:
            size = model_variable.shape if shape is None else tuple(shape)
            value = torch.zeros(size, dtype=model_variable.dtype, device=model_variable.device)
        else:
            value = torch.as_tensor(initial_value, dtype=model_variable.dtype, device=model_variable.device)
            value = value.detach().clone()
        value._keras_name = f"{variable_name}/{_var_name(model_variable)}"
        self._extra_variables.append(value)
        return value

    def add_variable(self, shape: Any, dtype: Any = None, initializer: Any = "zeros", name: str | None = None) -> torch.Tensor:
        """Creates an optimizer variable of `shape` ('zeros', 'ones' or a number as initializer); returns it."""
        dtype = torch.get_default_dtype() if dtype is None else dtype
        shape = () if shape is None else tuple(shape)
        device = creation_device()  # TF's placement: the tf.device block's, else the default
        if initializer == "zeros":
            value = torch.zeros(shape, dtype=dtype, device=device)
        elif initializer == "ones":
            value = torch.ones(shape, dtype=dtype, device=device)
        elif isinstance(initializer, (int, float)):
            value = torch.full(shape, float(initializer), dtype=dtype, device=device)
        elif callable(initializer):
            value = torch.as_tensor(initializer(shape, dtype=dtype), device=device)
        else:
            raise ValueError(
                f"add_variable: `initializer` must be 'zeros', 'ones', a number or a callable "
                f"(shape, dtype) -> tensor. Received: initializer={initializer!r}."
            )
        value._keras_name = name or f"variable_{len(self._extra_variables)}"
        self._extra_variables.append(value)
        return value

    def exclude_from_weight_decay(
        self, var_list: Iterable[torch.Tensor] | None = None, var_names: Iterable[str] | None = None
    ) -> None:
        """Excludes variables from weight decay: those in `var_list`, and those whose name
        matches (`re.search`) any string of `var_names`. Call it before the optimizer is built."""
        if self._vars:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before the optimizer is built.")
        self._exclude_ids = {id(v) for v in (var_list or [])}
        self._exclude_names = list(var_names or [])

    def _use_weight_decay(self, variable: torch.Tensor) -> bool:
        if id(variable) in self._exclude_ids:
            return False
        name = _var_name(variable)
        return not any(re.search(pattern, name) is not None for pattern in self._exclude_names)

    # --- the update ------------------------------------------------------------------------------

    def update_step(self, gradient: torch.Tensor, variable: torch.Tensor) -> None:
        """Updates `variable` in place from `gradient` (what a custom optimizer implements)."""
        raise TypeError(f"{type(self).__name__} does not implement update_step(gradient, variable).")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:  # its own step(): a train op runs it, the sync in the context
            cls._synced_step = Optimizer._step_in_context

    def step(self) -> None:
        """Applies the gradients held in `p.grad` of the built variables (one training step).

        Variables without a gradient are skipped (with a warning); raises
        ValueError if none has one, RuntimeError if the optimizer is not built.
        """
        Optimizer._synced_step(self, None)  # not a subclass's `_step_in_context`: it calls step()

    def _step_in_context(self, sync: GradientSync | None) -> None:
        if sync is None or sync is _current_sync():
            self.step()
        else:
            with gradient_sync.using(sync):
                self.step()

    def _synced_step(self, sync: GradientSync | None) -> None:
        """`step()` with the run's `GradientSync` (what `TrainOp.run` passes; None: the current
        one, `gradient_sync.current()`)."""
        params = self._vars
        if not params:
            raise RuntimeError(
                f"Optimizer {self.name!r} has no variables: call optimizer.build(var_list) with the "
                "variables to train before optimizer.step()."
            )
        grads = [p.grad for p in params]
        for g in grads:
            if g is None or g.is_sparse:
                self._apply_partial(list(zip(grads, params)), owned=True, sync=sync)
                return
        with torch.no_grad():
            self._apply(params, grads, full=True, owned=True, sync=sync)

    def checkpoint_slot_name(self, slot: str) -> str:
        """The name TF gives slot `slot` of a variable in a checkpoint (`<variable>/<name>`)."""
        return self._checkpoint_slot_names.get(slot, slot)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients of the built variables (sets them to None by default)."""
        for p in self._vars:
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_()
                    p.grad.zero_()

    def apply_gradients(
        self,
        grads_and_vars: Iterable[tuple[Any, torch.Tensor]],
        name: str | None = None,
        skip_gradients_aggregation: bool = False,
        **kwargs: Any,
    ) -> IterationsValue | Any:
        """Applies gradients to variables; builds the optimizer for new variables.

        `grads_and_vars` is an iterable of `(gradient, variable)` pairs
        (gradients may be None: such variables are skipped). Returns the new
        `iterations`.

        Inside an Estimator's `model_fn` the update is deferred, as `minimize()`'s: it
        returns the train op the Estimator runs once model_fn has returned, in TRAIN mode
        only (model_fn also runs to build the model and in EVAL/PREDICT mode, where TF's
        graph never ran the train op).
        """
        kwargs.pop("experimental_aggregate_gradients", None)
        if kwargs:
            raise TypeError(f"apply_gradients() got unexpected keyword argument(s) {sorted(kwargs)}.")
        pairs = list(grads_and_vars)
        for position, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(
                    "apply_gradients() expects (gradient, variable) pairs, e.g. zip(grads, vars); "
                    f"item {position} is {pair!r}."
                )
        mode = current_mode()
        if mode is not None:  # inside a model_fn: the train op the Estimator runs
            return self._deferred_apply(pairs, mode)
        if not pairs:
            return self.iterations
        self.build([v for _, v in pairs])
        self._apply_partial(pairs, owned=False)
        return self.iterations

    def _deferred_apply(self, pairs: list[tuple[Any, torch.Tensor]], mode: str) -> Any:
        """The train op applying `pairs` (gradients already computed, e.g. by a GradientTape)
        when the Estimator runs it: its loss hands each gradient to its variable on backward
        (no computation), then this optimizer steps those variables. In EVAL/PREDICT mode an
        empty op (it would never run)."""
        if mode != "train":
            return NoOp()
        grads, variables = [], []
        for g, v in pairs:
            if g is None:
                continue
            if not isinstance(v, torch.Tensor) or not v.requires_grad:
                raise ValueError(
                    f"apply_gradients(): {_var_name(v)} is not a trainable variable (it does not "
                    "require grad), so the optimizer cannot update it."
                )
            if not isinstance(g, torch.Tensor):
                g = torch.as_tensor(g, dtype=v.dtype, device=v.device)
            elif g.is_sparse:
                g = g.to_dense()
            if g.shape != v.shape:
                raise ValueError(
                    f"Gradient for {_var_name(v)} has shape {tuple(g.shape)}, but the variable has shape "
                    f"{tuple(v.shape)}."
                )
            grads.append(g.detach().to(dtype=v.dtype, device=v.device))
            variables.append(v)
        if not variables:
            names = [_var_name(v, i) for i, (_, v) in enumerate(pairs)]
            raise ValueError(
                f"No gradients provided for any variable: {names}. Check that the loss depends on the "
                "variables (and that it was computed under the GradientTape)."
            )
        with torch.enable_grad():
            carrier = _GradientCarrier.apply(tuple(grads), *variables)
        return TrainOp([(self, carrier, variables)])

    def _apply_partial(self, pairs: list[tuple[Any, torch.Tensor]], owned: bool,
                       sync: GradientSync | None = None) -> None:
        """Filters out missing gradients, converts the others, then updates (`sync`: see `_apply`)."""
        present = [(g, v) for g, v in pairs if g is not None]
        if not present:
            names = [_var_name(v, i) for i, (_, v) in enumerate(pairs)]
            raise ValueError(
                f"No gradients provided for any variable: {names}. Check that the loss depends on the "
                "variables (and that it was computed with gradients enabled)."
            )
        if len(present) < len(pairs):
            missing = [_var_name(v, i) for i, (g, v) in enumerate(pairs) if g is None]
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the loss. If you're "
                "using `model.compile()`, did you forget to provide a `loss` argument?",
                UserWarning,
                stacklevel=3,
            )
        grads, params = [], []
        for g, v in present:
            if not isinstance(g, torch.Tensor):
                g = torch.as_tensor(g, dtype=v.dtype, device=v.device)
            elif g.dtype != v.dtype or g.device != v.device:
                g = g.to(dtype=v.dtype, device=v.device)
            if g.shape != v.shape:
                raise ValueError(
                    f"Gradient for {_var_name(v)} has shape {tuple(g.shape)}, but the variable has shape "
                    f"{tuple(v.shape)}."
                )
            grads.append(g)
            params.append(v)
        full = len(params) == len(self._vars) and all(a is b for a, b in zip(params, self._vars))
        sparse = any(g.is_sparse for g in grads)
        with torch.no_grad():
            self._apply(params, grads, full=full, owned=owned, sparse=sparse, sync=sync)

    def _sparse_update_rule(self) -> str:
        """How this optimizer applies a sparse gradient (TF's IndexedSlices): see `_sparse.py`."""
        return self._sparse_rule

    def _apply(
        self, params: list[torch.Tensor], grads: list[torch.Tensor], full: bool, owned: bool, sparse: bool = False,
        sync: GradientSync | None = None,
    ) -> None:
        """One update of `params` (all built variables when `full`), under no_grad; `sparse`: some
        gradients are torch sparse tensors (clipped by their values, applied by `_sparse_rule`).
        `sync`: the run's `GradientSync` (a train op passes its own); None: the current one (user
        code's `apply_gradients` inside `strategy.run` / Keras `fit` under a strategy)."""
        if sync is None:
            sync = _current_sync()
        if sync.reduces:  # data-parallel training: the replicas' mean gradient
            if sparse:  # the replicas' rows differ: averaged as dense gradients
                grads, sparse = dense_grads(grads), False
            grads = sync.reduce(grads, params)
        step = self._iterations
        lr_fn = self._lr_fn
        if lr_fn is not None:
            lr = lr_fn(step)
            self._current_lr = lr
            if self._group is not None:
                self._group["lr"] = lr
        else:
            lr = self._current_lr
        if self.clipnorm or self.global_clipnorm or self.clipvalue:
            if sparse:
                grads = _sparse.clip_gradients(grads, self.clipnorm, self.global_clipnorm, self.clipvalue)
            else:
                grads = _clipping.clip_gradients(
                    grads, self.clipnorm, self.global_clipnorm, self.clipvalue, inplace=owned
                )
        weight_decay = self.weight_decay
        if weight_decay:
            targets = self._decay_vars if full else [p for p in params if self._use_weight_decay(p)]
            if targets:
                torch._foreach_mul_(targets, 1.0 - lr * weight_decay)
        kernel = self._kernel
        if kernel is not None:
            group = self._group
            if sparse:
                slots = kernel.group_slots(0) if full else kernel.slots_for(group, params)
                _sparse.apply(kernel, group, params, grads, slots, step, self._sparse_update_rule())
            elif full:
                kernel.update_group(0, params, grads, step)
            else:
                kernel.update(group, params, grads, kernel.slots_for(group, params), step)
        else:
            if sparse:
                grads = dense_grads(grads)
            for g, p in zip(grads, params):
                self.update_step(g, p)
        if self.use_ema:
            self._update_ema(params, full, step)
        step += 1
        self._iterations = step
        if kernel is not None:
            kernel.iterations = step
        constraints = self._constraints
        if constraints:
            if not full:
                ids = {id(p) for p in params}
                constraints = [(p, c) for p, c in constraints if id(p) in ids]
            for p, constraint in constraints:
                p.copy_(constraint(p))

    def _update_ema(self, params: list[torch.Tensor], full: bool, step: int) -> None:
        averages = self._ema if full else [self._ema[self._index_dict[id(p)]] for p in params]
        torch._foreach_lerp_(averages, params, 1.0 - self.ema_momentum)
        frequency = self.ema_overwrite_frequency
        if frequency and (step + 1) % frequency == 0:
            torch._foreach_copy_(params, averages)

    def finalize_variable_values(self, var_list: Iterable[torch.Tensor]) -> None:
        """Sets the final values of `var_list`: with `use_ema`, overwrites them by their moving average."""
        if not self.use_ema:
            return
        with torch.no_grad():
            for v in var_list:
                index = self._index_dict.get(id(v))
                if index is not None:
                    v.copy_(self._ema[index])


register_keras_class("optimizer", Optimizer)  # the object graph of tf.train.Checkpoint walks it
