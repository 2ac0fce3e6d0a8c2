"""`Layer.__call__`'s general path: the call phases, and the graph node of a symbolic call.

`LayerCallMixin` is mixed into `Layer` (`base_layer.py`). `Layer.__call__` handles the common
call itself (its fast path); every other call goes through `_call_phases`, in order:
normalise the arguments, record a graph node for symbolic inputs (`_symbolic_call`), hand
`tf.RaggedTensor`/`tf.SparseTensor` inputs to their adapters, apply the `.numpy()` rule, then
`_call_eager` -- cast, build, check the input spec, pass the mask, run `call` with `training`
resolved (`_call_in_context`), attach the output mask and the activity loss. The rules these
phases follow are stated in `base_layer`'s module docstring.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.loop import to_device as _to_device
from torchestimator._engine.object_scope import current_scope
from torchestimator._gradient_tape import recording
from torchestimator._ops import nest
from torchestimator.keras._ragged_inputs import call_on_ragged
from torchestimator.keras._sparse_inputs import call_on_sparse
from torchestimator.keras.engine import shape_inference
from torchestimator.keras.engine.call_context import (
    CONTEXT,
    WEIGHTS_OFF_HOST,
    accelerator_of_weights,
)
from torchestimator.keras.engine.input_spec import assert_input_compatibility
from torchestimator.keras.engine.keras_tensor import KerasTensor, is_symbolic
from torchestimator.keras.engine.layer_utils import (
    _attach_mask,
    _collect_mask,
    _has_hooks,
    _holds_tensor,
    _to_tensor,
)
from torchestimator.keras.engine.node import Node

# The compute dtypes of a mixed policy's layers: a top-level call of such a layer asks
# `_top_level_precision` for its autocast (float32 layers never ask: one set lookup).
REDUCED_FLOATS = frozenset((torch.float16, torch.bfloat16))


def _at_top_level() -> bool:
    """True when no layer call is in progress in this thread (and no shape trace runs)."""
    return CONTEXT.depth == 0 and not CONTEXT.tracing


def _module_mode_decides() -> bool:
    """True when a layer's own `train()`/`eval()` state decides its training flag: no shape
    trace runs and no Estimator `model_fn` is running (there, as in TF, a layer trains only
    when its call says `training=`). Asked only of a layer in train mode that got no
    `training=` and no flag from a Keras front or an outer call (the precedence rule in the
    module docstring)."""
    return not CONTEXT.tracing and current_scope() is None


class LayerCallMixin:
    """`Layer`'s general call (`_call_phases` and its phases) and its symbolic call.

    Only `Layer` mixes it in (before `torch.nn.Module`); the phases read the layer's state
    (`built`, `_input_spec`, `_compute_dtype`, ...) and call its `_maybe_build`, `forward`,
    `compute_mask` and `_passes_fast_spec`.
    """

    def _top_level_precision(self, inputs: Any) -> Any:
        """The context a top-level call of this layer (of a reduced compute dtype) runs its
        forward in, or None (the layer's own casts decide its dtypes). A `Model` under a mixed
        policy returns its autocast (`_device_moves.StepPlacement`); a plain layer None."""
        return None

    def _call_phases(self, args: tuple, kwargs: dict) -> Any:
        """The general call: normalise the arguments, record a graph node for symbolic inputs,
        apply the `.numpy()` rule, then `_call_eager`. (Each phase is skipped inline when its
        condition already says it has nothing to do: a top-level call on a tensor stays cheap.)"""
        if not args:
            args = self._normalize_call_args(args, kwargs)
        if (type(args[0]) is not torch.Tensor or len(args) > 1) and self._has_symbolic_args(args):
            return self._symbolic_call(args, kwargs)
        if type(args[0]).__name__ == "RaggedTensor":  # tf.RaggedTensor inputs: keras/_ragged_inputs.py
            return call_on_ragged(self, args, kwargs)
        if type(args[0]).__name__ == "SparseTensor":  # tf.SparseTensor inputs: keras/_sparse_inputs.py
            return call_on_sparse(self, args, kwargs)
        if not isinstance(args[0], torch.Tensor) and self._runs_without_grad(args[0]):
            # TF's eager semantics for a top-level call on numpy: nothing records.
            with torch.no_grad():
                return self._call_eager(args, kwargs)
        return self._call_eager(args, kwargs)

    def _call_eager(self, args: tuple, kwargs: dict) -> Any:
        """Casts the inputs, builds, checks the input spec, runs `call` in the training/mask
        call context, then attaches the output mask and the activity regularizer's loss."""
        inputs = args[0]
        host_data = not isinstance(inputs, torch.Tensor)  # numpy or Python values
        if type(inputs) is not torch.Tensor or inputs.dtype != self._compute_dtype:
            args = self._cast_inputs(args)
            inputs = args[0]
        if not self.built:
            self._maybe_build(inputs)
        if WEIGHTS_OFF_HOST[0] and not CONTEXT.tracing and (
                not CONTEXT.depth or host_data or _on_host(inputs)):
            # a top-level call's host tensors, numpy given to any call (converted on the host,
            # before a layer built in the call made its weights), and host inputs of a nested
            # call (a subclassed model's `call` passing on a tensor of the feature dict it was
            # given, which a top-level call leaves on the host) go to the weights
            args = self._host_inputs_to_weights(args, kwargs)
            inputs = args[0]
        if self._input_spec is not None:
            self._check_input_spec(inputs)
        input_mask = None
        if self._call_accepts_mask or self.supports_masking or self._overrides_compute_mask:
            input_mask = self._pass_mask(inputs, kwargs)
        outputs = self._call_in_context(args, kwargs)
        if self._overrides_compute_mask or (
            self.supports_masking and (input_mask is not None or kwargs.get("mask") is not None)
        ):  # a mask passed as `mask=` propagates too, as in TF
            self._attach_output_mask(inputs, outputs, kwargs.get("mask", input_mask))
        if self.activity_regularizer is not None:
            self._add_activity_loss(outputs)
        return outputs

    # The phases, in order.
    def _normalize_call_args(self, args: tuple, kwargs: dict) -> tuple:
        """Phase 1: the inputs as the first positional argument (`layer(inputs=x)` works too).
        `kwargs` loses the inputs' key."""
        if args:
            return args
        key = self._call_first_arg
        if key not in kwargs:
            raise ValueError(
                f'Layer "{self.name}" was called without inputs; pass them as the first argument.'
            )
        return (kwargs.pop(key),)

    @staticmethod
    def _has_symbolic_args(args: tuple) -> bool:
        """Phase 2: whether the call records a graph node (a `KerasTensor` in the inputs, or in
        another positional argument)."""
        if type(args[0]) is not torch.Tensor and is_symbolic(args[0]):
            return True
        return len(args) > 1 and any(is_symbolic(a) for a in args[1:])

    @staticmethod
    def _runs_without_grad(inputs: Any) -> bool:
        """Phase 3, the `.numpy()` rule (module docstring): a top-level call on inputs that are
        not torch tensors, with autograd on, outside a GradientTape, fit and model_fn."""
        return (
            not isinstance(inputs, torch.Tensor)
            and CONTEXT.training is None  # no Keras front (fit feeds numpy strings as they are)
            and _at_top_level()
            and torch.is_grad_enabled()
            and not recording()
            and current_scope() is None
            and not _holds_tensor(inputs)
        )

    def _cast_inputs(self, args: tuple) -> tuple:
        """Phase 4: numpy arrays (also in lists and dicts) become tensors; floating inputs take
        the compute dtype (unless `autocast=False`)."""
        inputs = args[0]
        if not isinstance(inputs, torch.Tensor):
            inputs = _to_tensor(inputs, self._compute_dtype if self._autocast else None)
            # host data goes where the layer's weights are, as TF copies it to their device
            weight = next(iter(self._parameters.values()), None) if self.built else None
            if weight is None and self.built:
                weight = next(self.parameters(), None)
            if weight is not None and weight.device.type != "cpu":
                inputs = _to_device(inputs, weight.device)
            args = (inputs,) + args[1:]
        if (
            isinstance(inputs, torch.Tensor)
            and inputs.dtype != self._compute_dtype
            and self._autocast
            and inputs.is_floating_point()
            and self._compute_dtype.is_floating_point
        ):
            args = (inputs.to(self._compute_dtype),) + args[1:]
        return args

    def _host_inputs_to_weights(self, args: tuple, kwargs: dict) -> tuple:
        """Phase 4b (top-level calls, once a weight lives on an accelerator): host tensors go
        where the layer's weights are, as TF copies an op's input to the op's device -- a CPU
        tensor or a list/tuple of tensors, as the inputs or as another argument (an RNN's
        `initial_state`, an attention layer's `value`, a mask): `model(tf.constant(x))` and
        `lstm(x, initial_state=[h, c])` work on a GPU. `kwargs` is updated in place. A feature
        dict stays: feature-column layers do their host work and place their own outputs
        (`feature_column/_layer_utils.target_device`). A layer that follows its input's
        device (`_follows_input_device`: Normalization, which runs in a host `tf.data` map as
        well as in a model on the GPU) keeps its inputs where they are."""
        if self._follows_input_device:
            return args
        moved_args = [i for i, a in enumerate(args) if _on_host(a)]
        moved_kwargs = [k for k, v in kwargs.items() if _on_host(v)]
        if not moved_args and not moved_kwargs:
            return args
        device = accelerator_of_weights(self)
        if device is None:
            return args
        for key in moved_kwargs:
            kwargs[key] = _moved_with_mask(kwargs[key], device)
        if not moved_args:
            return args
        args = list(args)
        for i in moved_args:
            args[i] = _moved_with_mask(args[i], device)
        return tuple(args)

    def _check_input_spec(self, inputs: Any) -> None:
        """Phase 5 (layers with an input spec): raises ValueError when the inputs do not match."""
        if type(inputs) is torch.Tensor and self._passes_fast_spec(inputs):
            return
        flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        assert_input_compatibility(self._input_spec, flat, self.name)

    def _pass_mask(self, inputs: Any, kwargs: dict) -> Any:
        """Phase 6a (layers that take, support or compute masks): the inputs' mask, passed to
        `call` as `mask` when `call` takes one and none was given."""
        mask = (
            getattr(inputs, "_keras_mask", None) if type(inputs) is torch.Tensor
            else _collect_mask(inputs)
        )
        if self._call_accepts_mask and mask is not None and kwargs.get("mask") is None:
            kwargs["mask"] = mask
        return mask

    def _call_in_context(self, args: tuple, kwargs: dict) -> Any:
        """Phase 6b: runs `call` (through `nn.Module.__call__` when torch hooks are set) with
        `training` resolved -- an explicit argument wins and is inherited by nested layers,
        else the enclosing call's or Keras front's, else (outside a model_fn) True when the
        layer is in torch train mode (and False in eval mode for a call whose `training`
        defaults to True); the module mode is not inherited, each nested layer reads
        its own -- and the call depth counted; a top-level call starts a new generation of
        activity losses and is recorded by an active model_fn/fit scope."""
        context = CONTEXT
        previous_training = context.training
        if self._call_accepts_training:
            training = kwargs.get("training")
            if training is None:
                if previous_training is not None:
                    kwargs["training"] = previous_training
                elif (self.training or self._call_training_default_true) and _module_mode_decides():
                    kwargs["training"] = self.training  # True, or False for a default of True
            else:
                if isinstance(training, torch.Tensor):
                    training = bool(training)
                    kwargs["training"] = training
                context.training = training
        elif "training" in kwargs:
            training = kwargs.pop("training")
            if training is not None:
                context.training = bool(training)
        precision = None
        if context.depth == 0 and not context.tracing:
            context.generation += 1
            context.outer = self
            scope = current_scope()
            if scope is not None:
                scope.record_layer_call(self)
            if self._compute_dtype in REDUCED_FLOATS:  # a mixed model's own call: its autocast
                precision = self._top_level_precision(args[0])
        context.depth += 1
        try:
            if precision is not None:
                with precision:
                    if _has_hooks(self):
                        return torch.nn.Module.__call__(self, *args, **kwargs)
                    return self.forward(*args, **kwargs)
            if _has_hooks(self):
                return torch.nn.Module.__call__(self, *args, **kwargs)
            return self.forward(*args, **kwargs)
        finally:
            context.depth -= 1
            context.training = previous_training

    def _attach_output_mask(self, inputs: Any, outputs: Any, mask: Any) -> None:
        """Phase 7 (layers that override `compute_mask`, or support masking and got inputs
        carrying a mask): attaches `compute_mask(inputs, mask)` to the outputs."""
        out_mask = self.compute_mask(inputs, mask)
        if out_mask is not None:
            _attach_mask(outputs, out_mask)

    def _add_activity_loss(self, outputs: Any) -> None:
        """Phase 8 (layers with an activity regularizer): the regularizer's value of the outputs
        (divided by the batch size) becomes this call's activity loss (not in a shape trace)."""
        if CONTEXT.tracing:
            return
        batch = outputs.shape[0] if isinstance(outputs, torch.Tensor) and outputs.ndim else 1
        value = sum(self.activity_regularizer(o) for o in nest.flatten(outputs)) / batch
        self._activity_losses = [CONTEXT.generation, [value]]
        CONTEXT.losses_generation = CONTEXT.generation

    # ------------------------------------------------------------------ symbolic
    def _symbolic_call(self, args: tuple, kwargs: dict) -> Any:
        inputs = args[0]
        if not self.built:
            self._maybe_build(inputs)
        if self._input_spec is not None:
            flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
            assert_input_compatibility(self._input_spec, flat, self.name)
        outputs = shape_inference.compute_output_spec(self, args, kwargs)
        input_mask = getattr(inputs, "_keras_mask", None) if isinstance(inputs, KerasTensor) else None
        if (
            input_mask is not None
            and self.supports_masking
            and not self._overrides_compute_mask
            and isinstance(outputs, KerasTensor)
            and outputs._keras_mask is None
        ):
            outputs._keras_mask = input_mask  # a mask-preserving layer passes the mask through
        Node(self, args, kwargs, outputs)
        return outputs


def _on_host(value: Any) -> bool:
    """Whether `value` is a CPU tensor, or a list/tuple of tensors one of which is on the CPU
    (what a top-level call moves to its weights' device)."""
    if isinstance(value, torch.Tensor):
        return value.device.type == "cpu"
    return (isinstance(value, (list, tuple)) and bool(value)
            and all(isinstance(t, torch.Tensor) for t in value)
            and any(t.device.type == "cpu" for t in value))


def _moved_with_mask(inputs: Any, device: torch.device) -> Any:
    """`inputs` (a tensor, or a list/tuple of tensors) on `device`, each with its Keras mask
    (`_keras_mask`, moved too) when it had one."""
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_moved_with_mask(t, device) for t in inputs)
    moved = _to_device(inputs, device)
    mask = getattr(inputs, "_keras_mask", None)
    if mask is not None and moved is not inputs:
        moved._keras_mask = _to_device(mask, device)
    return moved
