"""More of `tf.compat.v1.train`: `AdagradDAOptimizer` (TF1's `ApplyAdagradDA`), the subclassable
base `Optimizer`, `VocabInfo` / `warm_start` / `init_from_checkpoint`, the `experimental`
mixed-precision names, and the refused `ServerDef` and `sdca_*` kernels."""

from __future__ import annotations

import types
from typing import Any

import torch

from torchestimator._engine import checkpoint as ckpt
from torchestimator._ops.convert import convert_to_tensor
from torchestimator._refused import refuse
from torchestimator._variable import Variable
from torchestimator.compat.v1 import _train_mixed_precision as mp
from torchestimator.compat.v1._variable_scope import _store
from torchestimator.compat.v1.optimizers._base import (
    GATE_GRAPH,
    GATE_NONE,
    GATE_OP,
    V1Optimizer,
    V1OptimizerMeta,
)
from torchestimator.keras.optimizers._args import _number
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer as _KerasOptimizer


# --------------------------------------------------------------------------------------------
# AdagradDAOptimizer
# --------------------------------------------------------------------------------------------
class AdagradDAKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF1's `ApplyAdagradDA` rule (slots `gradient_accumulator`,
    `gradient_squared_accumulator`); `global_step` (set by the optimizer) is read each update."""

    global_step: Any = None

    def __init__(self, params: Any, lr: float = 0.001, initial_gradient_squared_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0) -> None:
        super().__init__(params, {"lr": lr, "initial_gradient_squared_accumulator_value":
                                  initial_gradient_squared_accumulator_value,
                                  "l1": l1_regularization_strength, "l2": l2_regularization_strength})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`gradient_accumulator`, `gradient_squared_accumulator`."""
        return ("gradient_accumulator", "gradient_squared_accumulator")

    def initial_slot_value(self, name: str, group: dict[str, Any]) -> float:
        """Zero for the gradient sum, `initial_gradient_squared_accumulator_value` for the squares."""
        return 0.0 if name == "gradient_accumulator" else group["initial_gradient_squared_accumulator_value"]

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors,
               slots: dict[str, Tensors], step: int) -> None:
        """`g_acc += g; gg_acc += g^2; var = -lr * shrink(g_acc, l1 * t) / (l2 * t * lr + sqrt(gg_acc))`
        with `t` the global step's current value + 1 (TF1's `_prepare`: `global_step + 1`)."""
        t = (float(self.global_step) if self.global_step is not None else float(step)) + 1.0
        lr, l1, l2 = group["lr"], group["l1"], group["l2"]
        for var, grad, g_acc, gg_acc in zip(params, grads, slots["gradient_accumulator"],
                                            slots["gradient_squared_accumulator"]):
            g_acc.add_(grad)
            gg_acc.addcmul_(grad, grad)
            if l1 > 0:
                numerator = torch.sign(g_acc) * (g_acc.abs() - l1 * t).clamp_min(0)
            else:
                numerator = g_acc
            var.copy_(-lr * numerator / (l2 * t * lr + gg_acc.sqrt()))


class AdagradDAOptimizer(V1Optimizer, _KerasOptimizer, metaclass=V1OptimizerMeta):
    """Adagrad Dual Averaging algorithm for sparse linear models (TF1's
    `tf.compat.v1.train.AdagradDAOptimizer(learning_rate, global_step,
    initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0,
    l2_regularization_strength=0.0, use_locking=False, name='AdagradDA')`). `global_step` (a
    variable, normally the one `minimize(global_step=...)` advances) is read at each update:
    the step's `t` is its value + 1, as TF1's."""

    _kernel_class = AdagradDAKernel
    _slot_layout = (("gradient_accumulator", "gradient_squared_accumulator"),)
    _v1_slot_names = {"gradient_accumulator": "{name}", "gradient_squared_accumulator": "{name}_1"}
    _tf1_slots = {"gradient_accumulator": "gradient_accumulator",
                  "gradient_squared_accumulator": "gradient_squared_accumulator"}

    def __init__(self, learning_rate: Any, global_step: Any, initial_gradient_squared_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(name=name)
        self._build_learning_rate(learning_rate)
        owner = type(self).__name__
        self._global_step = global_step
        self.initial_gradient_squared_accumulator_value = _number(
            initial_gradient_squared_accumulator_value, "initial_gradient_squared_accumulator_value", owner)
        self.l1_regularization_strength = _number(l1_regularization_strength, "l1_regularization_strength", owner)
        self.l2_regularization_strength = _number(l2_regularization_strength, "l2_regularization_strength", owner)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"initial_gradient_squared_accumulator_value": self.initial_gradient_squared_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength}

    def build(self, var_list: Any) -> None:
        """Registers the variables and creates their slots; the kernel reads `global_step`."""
        super().build(var_list)
        if self._kernel is not None:
            self._kernel.global_step = _StepReader(self._global_step)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments (but the global step variable)."""
        return {"learning_rate": self._serialize_hyperparameter(self._learning_rate),
                **self._kernel_hyperparameters(), "name": self.name}


class _StepReader:
    """The current value of a global step (a variable, tensor, int, or None: the model_fn's)."""

    def __init__(self, source: Any):
        self._source = source

    def __float__(self) -> float:
        source = self._source
        if source is None:
            from torchestimator.compat.v1._train_global_step import (  # lazy: heavy (torchestimator.compat.v1._train_global_step, 77 ms)
                get_global_step,
            )

            source = get_global_step()
            if source is None:
                return 0.0
        return float(source.detach() if isinstance(source, torch.Tensor) else source)


# --------------------------------------------------------------------------------------------
# Optimizer: TF1's subclassable base
# --------------------------------------------------------------------------------------------
class Optimizer(V1Optimizer, _KerasOptimizer, metaclass=V1OptimizerMeta):
    """Base class for optimizers (TF1's `tf.compat.v1.train.Optimizer(use_locking, name)`).

    Subclass it as in TF1: create slots in `_create_slots(var_list)` (with `_zeros_slot`,
    `_get_or_make_slot`), prepare hyperparameters in `_prepare()`, and update a variable in
    `_resource_apply_dense(grad, var)` (or `_apply_dense`) with the variable's `assign`,
    `assign_add`, `assign_sub` (sparse gradients arrive dense: `_resource_apply_sparse` is
    not needed). `minimize`, `compute_gradients` and `apply_gradients` work as every TF1
    optimizer here (inside an Estimator's `model_fn` too)."""

    GATE_NONE = GATE_NONE
    GATE_OP = GATE_OP
    GATE_GRAPH = GATE_GRAPH

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        super().__init__(name=name)
        self._use_locking = use_locking
        self._slots: dict[str, dict[int, Any]] = {}
        self._non_slot_dict: dict[str, Any] = {}
        self._prepared_at = -1

    # -- what TF1 subclasses define -----------------------------------------------------------------
    def _create_slots(self, var_list: list) -> None:
        """Create all slots needed by the variables (none by default)."""

    def _prepare(self) -> None:
        """Create all needed tensors before applying gradients (nothing by default)."""

    def _apply_dense(self, grad: torch.Tensor, var: Any) -> Any:
        """Add ops to apply dense gradients to `var` (a subclass defines this or
        `_resource_apply_dense`)."""
        raise TypeError(f"{type(self).__name__} must define _resource_apply_dense(grad, var) or "
                        "_apply_dense(grad, var) to update a variable (TF1's Optimizer subclass API).")

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> Any:
        """Add ops to apply dense gradients to the variable `handle` (defaults to `_apply_dense`)."""
        return self._apply_dense(grad, handle)

    def _finish(self, update_ops: list, name_scope: str) -> Any:
        """Do what is needed to finish the update (nothing by default)."""
        return None

    # -- the Keras optimizer's hooks ------------------------------------------------------------------
    def build(self, var_list: Any) -> None:
        """Registers the variables and calls `_create_slots` for the new ones."""
        before = len(self._vars)
        super().build(var_list)
        new = self._vars[before:]
        if new:
            self._create_slots(list(new))

    def update_step(self, gradient: torch.Tensor, variable: torch.Tensor) -> None:
        """Applies `gradient` to `variable` through the subclass's `_resource_apply_dense`."""
        if self._prepared_at != self._iterations:
            self._prepare()
            self._prepared_at = self._iterations
        with torch.no_grad():
            self._resource_apply_dense(gradient, variable)

    # -- slots ---------------------------------------------------------------------------------------
    def _slot_dict(self, slot_name: str) -> dict[int, Any]:
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var: Any, val: Any, slot_name: str, op_name: str) -> Any:
        """The slot `slot_name` of `var`, created holding `val` when missing."""

        slots = self._slot_dict(slot_name)
        if id(var) not in slots:
            value = val() if callable(val) else val
            tensor = value if isinstance(value, torch.Tensor) else convert_to_tensor(value, dtype=var.dtype)
            base = getattr(var, "_tf_name", "Variable").split(":")[0]
            slot = Variable.create(tensor.detach().clone().to(var.device), trainable=False,
                                   name=f"{base}/{op_name}")
            slots[id(var)] = slot
            self._extra_variables.append(slot)
        return slots[id(var)]

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> Any:
        """A slot of zeros shaped like `var`."""
        return self._get_or_make_slot(var, lambda: torch.zeros_like(var.detach()), slot_name, op_name)

    def _get_or_make_slot_with_initializer(self, var: Any, initializer: Any, shape: Any, dtype: Any,
                                           slot_name: str, op_name: str) -> Any:
        """A slot holding `initializer(shape, dtype)`."""
        return self._get_or_make_slot(var, lambda: initializer(shape, dtype=dtype), slot_name, op_name)

    def get_slot(self, var: Any, name: str) -> Any:
        """The slot `name` created for `var`, or None."""
        return self._slots.get(name, {}).get(id(var))

    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer made, sorted."""
        return sorted(self._slots)

    def _create_non_slot_variable(self, initial_value: Any, name: str, colocate_with: Any = None) -> Any:
        """A variable of the optimizer itself (e.g. Adam's beta powers), made once."""

        if name not in self._non_slot_dict:
            value = torch.as_tensor(initial_value() if callable(initial_value) else initial_value)
            variable = Variable.create(value.detach().clone(), trainable=False, name=name)
            self._non_slot_dict[name] = variable
            self._extra_variables.append(variable)
        return self._non_slot_dict[name]

    def _get_non_slot_variable(self, name: str, graph: Any = None) -> Any:
        """The optimizer's own variable `name`, or None."""
        return self._non_slot_dict.get(name)

    def _call_if_callable(self, param: Any) -> Any:
        """`param()` if it is callable, else `param` (TF1's hyperparameters may be callables)."""
        return param() if callable(param) else param

    def variables(self) -> list:
        """The slot and non-slot variables this optimizer created."""
        return list(self._extra_variables)

    def get_config(self) -> dict[str, Any]:
        """The optimizer's name."""
        return {"name": self.name}


# --------------------------------------------------------------------------------------------
# VocabInfo / warm_start / init_from_checkpoint
# --------------------------------------------------------------------------------------------
def _store_variables() -> dict[str, torch.Tensor]:
    """The TF1 variable store's variables by TF name (no ':0')."""

    return {name.split(":")[0]: var for name, var in _store().variables()}


class _StoreState:
    """What `warm_starting.warm_start` reads: the variables by name (no object graph)."""

    def named_variables(self) -> dict[str, torch.Tensor]:
        return _store_variables()

    def _object_graph(self) -> None:
        return None


def warm_start(ckpt_to_initialize_from: str, vars_to_warm_start: Any = ".*", var_name_to_vocab_info: Any = None,
               var_name_to_prev_var_name: Any = None) -> list[str]:
    """Warm-starts a model using the given settings (TF1's `tf.compat.v1.train.warm_start`): the
    variables made so far (`tf.compat.v1.global_variables()`; `vars_to_warm_start` a regex or
    list of regexes selecting the trainable ones, or None for only those with vocab info) are
    loaded from `ckpt_to_initialize_from` (a checkpoint or its folder), remapping vocabularies
    (`var_name_to_vocab_info`) and names (`var_name_to_prev_var_name`). Returns the names
    warm-started."""
    from torchestimator.estimator import (  # lazy: heavy (torchestimator.estimator, 274 ms)
        warm_starting,
    )

    settings = warm_starting.WarmStartSettings(
        ckpt_to_initialize_from, vars_to_warm_start=vars_to_warm_start,
        var_name_to_vocab_info=var_name_to_vocab_info, var_name_to_prev_var_name=var_name_to_prev_var_name)
    return warm_starting.warm_start(_StoreState(), settings)


def init_from_checkpoint(ckpt_dir_or_file: str, assignment_map: dict) -> None:
    """Replaces variables' values by those of a checkpoint (TF1's
    `tf.compat.v1.train.init_from_checkpoint(ckpt_dir_or_file, assignment_map)`), at once as
    TF2's eager version. `assignment_map` maps a checkpoint name to a variable (object or name)
    or a checkpoint scope `'old/'` to a scope `'new/'` (`'/'`: the root); errors as TF's for a
    missing tensor, a shape mismatch or a scope mapped to a name."""
    from torchestimator.estimator.warm_starting import (  # lazy: heavy (torchestimator.estimator.warm_starting, 280 ms)
        _checkpoint_path,
    )

    path = _checkpoint_path(ckpt_dir_or_file)
    tensors, _ = ckpt.load_checkpoint(path)
    store_vars = _store_variables()

    def assign(var: torch.Tensor, tensor_name: str) -> None:
        value = tensors[tensor_name]
        if tuple(var.shape) != tuple(value.shape):
            raise ValueError(f"Shape of variable {getattr(var, 'name', '?')} ({tuple(var.shape)}) doesn't match with "
                             f"shape of tensor {tensor_name} ({list(value.shape)}) from checkpoint reader.")
        with torch.no_grad():
            var.copy_(value.to(device=var.device, dtype=var.dtype))

    for tensor_name_in_ckpt, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        if isinstance(current, torch.Tensor):
            var = current
        elif isinstance(current, (list, tuple)) and current and all(isinstance(v, torch.Tensor) for v in current):
            raise ValueError(f"init_from_checkpoint: {tensor_name_in_ckpt} maps to a list of partitioned variables; "
                             "variables are not partitioned here, map it to the one variable.")
        else:
            var = store_vars.get(current)
        if var is not None:
            if tensor_name_in_ckpt not in tensors:
                raise ValueError(f"Tensor {tensor_name_in_ckpt} is not found in {ckpt_dir_or_file} checkpoint "
                                 f"{ {k: list(v.shape) for k, v in tensors.items()} }")
            assign(var, tensor_name_in_ckpt)
            continue
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not tensor_name_in_ckpt.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scopes} should map to scope only "
                             f"{tensor_name_in_ckpt}. Should be 'scope/': 'other_scope/'.")
        for var_name in sorted(n for n in store_vars if not scopes or n.startswith(scopes + "/")):
            full_tensor_name = var_name[len(scopes):]
            if current != "/":
                full_tensor_name = full_tensor_name[1:]
            if tensor_name_in_ckpt != "/":
                full_tensor_name = tensor_name_in_ckpt + full_tensor_name
            full_tensor_name = full_tensor_name.rstrip("/")
            if full_tensor_name not in tensors:
                raise ValueError(f"Tensor {full_tensor_name} ({var_name[len(scopes) + 1:]} in {tensor_name_in_ckpt}) "
                                 f"is not found in {ckpt_dir_or_file} checkpoint")
            assign(store_vars[var_name], full_tensor_name)


def _experimental() -> Any:
    """`tf.compat.v1.train.experimental` (loss scaling and the mixed-precision switches)."""


    module = types.ModuleType("torchestimator.compat.v1.train.experimental", mp.__doc__)
    for name in mp.__all__:
        setattr(module, name, getattr(mp, name))
    return module


experimental = _experimental()
_SDCA = ("TF's SDCA kernels (sdca_optimizer, sdca_fprint, sdca_shrink_l1) are internal ops of the linear "
         "estimators: pass optimizer=tf.estimator.experimental.LinearSDCA(...) to LinearClassifier or "
         "LinearRegressor, which runs SDCA here")
ServerDef = refuse("tf.compat.v1.train.ServerDef",
                   "TensorFlow's gRPC server configuration does not exist here: start the processes with "
                   "`torchestimator launch` or torchrun (or a TF_CONFIG cluster)")
sdca_fprint = refuse("tf.compat.v1.train.sdca_fprint", _SDCA)
sdca_optimizer = refuse("tf.compat.v1.train.sdca_optimizer", _SDCA)
sdca_shrink_l1 = refuse("tf.compat.v1.train.sdca_shrink_l1", _SDCA)

__all__ = ["AdagradDAOptimizer", "Optimizer", "ServerDef", "experimental", "init_from_checkpoint", "sdca_fprint", "sdca_optimizer",
           "sdca_shrink_l1", "warm_start"]
