"""`Layer`: the base class of every Keras layer and model — a `torch.nn.Module` that
builds its weights lazily.

`build(input_shape)` creates the weights the first time the layer sees an
input; `call(inputs, training=None, mask=None)` is the computation; `__call__`
does both, checks `input_spec`, threads `training` and masks through nested
layers, and, when given symbolic `KerasTensor`s, records a graph node instead
of computing (the functional API).

Weights are `tf.Variable`s (a `torch.nn.Parameter` subclass) registered on
the module, so `parameters()`, `state_dict()`, `.to(device)`, `torch.compile`
and `torch.export` see them, and TF code reads `weight.name`
('dense/kernel:0'), `weight.numpy()` and calls `weight.assign(...)`. A weight
declared non-trainable (BatchNorm's moving statistics), or one of a layer
with `trainable=False`, does not record gradients.

When a call records gradients (the `.numpy()` rule). TensorFlow records
gradients only inside a `GradientTape`; torch records every operation on a
parameter. The rule that makes both kinds of program work: a layer or model
called at the top level (not from inside another layer's `call`), with
autograd enabled, no active `GradientTape`, and not inside `fit`/`evaluate`/
`predict` or an Estimator's `model_fn` (an active object scope), on inputs
that are not torch tensors (numpy arrays, Python lists or numbers, or dicts
and lists of those) runs under `torch.no_grad()`: its output can be read with
`.numpy()`, as TF's quickstart does with `model(x_train[:1]).numpy()`. Torch
tensor inputs (including `tf.constant` results and the batches `fit` passes),
or an active `GradientTape`, keep autograd, so hand-written torch loops and
TF custom training loops train as before. The check runs only for non-tensor
inputs, so calls on tensors (every call inside `fit`) pay nothing for it.

The training flag (whether `Dropout` drops, `BatchNormalization` normalizes by and updates
batch statistics, an RNN applies its dropouts) of a layer whose `call` takes `training`;
the first rule that applies decides:

1. an explicit `training=` argument of the call (nested layers inherit it);
2. a Keras front: `fit` (True), `evaluate`/`predict` (False), or an outer layer call that
   was given `training=` or got it from a front (its value), passed on by the call context;
3. inside an Estimator's `model_fn`, TF's rule: only `training=` trains (pass
   `training=(mode == tf.estimator.ModeKeys.TRAIN)`), whatever the module's mode;
4. the layer's own torch mode, `layer.training` (set by `model.train()` / `model.eval()`,
   as a plain torch loop or Lightning does): train mode trains, eval mode is inference.
   Each layer reads its own mode (`model.train(); model.bn.eval()` keeps `bn` in
   inference).

Keras layers start in eval mode (`training` is False after construction), so a freshly
built model called as `model(x)` runs inference, as in TF; `fit`, `evaluate`, `predict`
and the `*_on_batch` methods switch the modules' mode while they run and leave every
module in the mode they found it in.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine.loop import to_device as _to_device
from torchestimator._engine.object_scope import ReusableMeta, current_scope
from torchestimator._gradient_tape import recording
from torchestimator._ops import nest
from torchestimator._ops.control_ops import _context as _placement
from torchestimator._variable import Variable
from torchestimator.keras.backend import _state
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.input_spec import InputSpec, assert_input_compatibility
from torchestimator.keras.engine.keras_tensor import KerasTensor, is_symbolic
from torchestimator.keras.engine.layer_utils import (
    _attach_mask,
    _batch_input_shape_from_kwargs,
    _collect_mask,
    _first_tensor,
    _has_hooks,
    _holds_tensor,
    _jsonable_shape,
    _resolve_constraint,
    _resolve_initializer,
    _resolve_regularizer,
    _shape_of,
    _shape_to_spec,
    _to_tensor,
    _unjson_shape,
    describe_key_mismatch,
    fast_spec_of,
)
from torchestimator.keras.mixed_precision._policy import global_policy_name
from torchestimator.keras.saving._registry import register_builtin

_NO_INPUTS: Any = object()  # `forward()` called without positional inputs

_BASE_KWARGS = {
    "input_shape", "batch_input_shape", "batch_size", "input_dim", "input_length",
    "weights", "activity_regularizer", "autocast", "dynamic",
}


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


class Layer(torch.nn.Module, metaclass=ReusableMeta):
    """The base class of all layers: a `torch.nn.Module` with Keras' build/call protocol.

    Args:
        trainable: whether the layer's weights are updated by training.
        name: a unique name; by default the snake-cased class name made unique
            (`dense`, `dense_1`, ...).
        dtype: the dtype of the weights and computation ('float32' by default),
            or a mixed-precision policy name such as 'mixed_float16'.
        input_shape / input_dim / batch_input_shape / batch_size: the shape of
            the input, for the first layer of a `Sequential` model.
        activity_regularizer: a function of the output added to `losses`.
    """

    _call_accepts_training = False
    _call_accepts_mask = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        try:
            params = inspect.signature(cls.call).parameters
        except (TypeError, ValueError):
            params = {}
        var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        cls._call_accepts_training = "training" in params or var_kw
        cls._call_accepts_mask = "mask" in params
        cls._call_first_arg = next(
            (n for n in list(params)[1:2]), "inputs"
        )
        cls._overrides_compute_output_shape = (
            cls.compute_output_shape is not Layer.compute_output_shape
        )
        cls._overrides_compute_mask = cls.compute_mask is not Layer.compute_mask
        if cls.__module__.startswith("torchestimator."):
            register_builtin(cls)

    def __init__(
        self,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ):
        super().__init__()
        self.training = False  # Keras layers start in inference mode (module docstring)
        unknown = set(kwargs) - _BASE_KWARGS
        if unknown:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected keyword argument(s) "
                f"{sorted(unknown)}; allowed layer arguments are {sorted(_BASE_KWARGS)} "
                "besides the layer's own."
            )
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Layer name must be a string; received name={name!r}")
        self._name = name or _state.unique_object_name(type(self).__name__)
        self._set_dtype_policy(dtype)
        self._trainable = bool(trainable)
        self.built = False
        self.supports_masking = getattr(self, "supports_masking", False)
        self._input_spec: Any = None
        self._inbound_nodes: list = []
        self._own_weights: list[Variable] = []
        self._activity_losses: list = []
        self._build_shapes: Any = None
        self._build_device: torch.device | None = None
        self._autocast = kwargs.pop("autocast", True)
        self.activity_regularizer = _resolve_regularizer(kwargs.pop("activity_regularizer", None))
        self._initial_weights = kwargs.pop("weights", None)
        self._batch_input_shape = _batch_input_shape_from_kwargs(kwargs)

    # ------------------------------------------------------------------ dtype
    def _set_dtype_policy(self, dtype: Any) -> None:
        if dtype is None:  # the global policy (tf.keras.mixed_precision.set_global_policy)
            dtype = global_policy_name() or _state.floatx()
        if isinstance(dtype, dict):  # a serialized DTypePolicy
            dtype = dtype.get("config", {}).get("name", _state.floatx())
        name = getattr(dtype, "name", None) if not isinstance(dtype, (str, torch.dtype)) else None
        if isinstance(name, str):
            dtype = name
        if isinstance(dtype, str) and dtype.startswith("mixed_"):
            self._dtype_policy_name = dtype
            self._variable_dtype = torch.float32
            self._compute_dtype = _dtypes.as_dtype(dtype[len("mixed_"):])
        else:
            resolved = _dtypes.as_dtype(dtype)
            self._dtype_policy_name = _dtypes.dtype_name(resolved)
            self._variable_dtype = resolved if isinstance(resolved, torch.dtype) else torch.float32
            self._compute_dtype = self._variable_dtype

    @property
    def dtype(self) -> str:
        """The dtype of the layer's weights, as a string ('float32')."""
        return _dtypes.dtype_name(self._variable_dtype)

    @property
    def compute_dtype(self) -> str:
        """The dtype of the layer's computation, as a string."""
        return _dtypes.dtype_name(self._compute_dtype)

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layer's weights, as a string."""
        return _dtypes.dtype_name(self._variable_dtype)

    @property
    def dtype_policy(self) -> str:
        """The dtype policy name ('float32', 'mixed_float16', ...)."""
        return self._dtype_policy_name

    # ------------------------------------------------------------------ naming
    @property
    def name(self) -> str:
        """The layer's unique name."""
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def input_spec(self) -> Any:
        """The `InputSpec` (or list of them) every input is checked against, or None."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value: Any) -> None:
        for v in nest.flatten(value):
            if v is not None and not isinstance(v, InputSpec):
                raise TypeError(
                    f"Layer {self.name}: input_spec must be an InputSpec or a list of them; "
                    f"received {v!r}"
                )
        self._input_spec = value

    # ------------------------------------------------------------------ tracking
    def __setattr__(self, name: str, value: Any) -> None:
        if (
            isinstance(value, (list, tuple))
            and value
            and not name.startswith("_")
            and all(isinstance(v, torch.nn.Module) for v in value)
            and "_modules" in self.__dict__
        ):
            value = torch.nn.ModuleList(value)
        elif (
            isinstance(value, dict)
            and value
            and not name.startswith("_")
            and all(isinstance(v, torch.nn.Module) for v in value.values())
            and all(isinstance(k, str) for k in value)
            and "_modules" in self.__dict__
        ):
            value = torch.nn.ModuleDict(value)
        super().__setattr__(name, value)

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list[Layer]:
        """The layers inside this one (depth first, each once), optionally with itself."""
        out: list[Layer] = [self] if include_self else []
        seen = {id(self)}
        stack = list(self._direct_sublayers())[::-1]
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            if recursive:
                stack.extend(list(layer._direct_sublayers())[::-1])
        return out

    def _direct_sublayers(self) -> list[Layer]:
        found: list[Layer] = []
        for module in self._modules.values():
            if isinstance(module, Layer):
                found.append(module)
            elif isinstance(module, (torch.nn.ModuleList, torch.nn.ModuleDict)):
                values = module.values() if isinstance(module, torch.nn.ModuleDict) else module
                found.extend(m for m in values if isinstance(m, Layer))
        return found

    def _raw_torch_modules(self) -> list[torch.nn.Module]:
        """Plain torch modules (not Keras layers) held directly by this layer."""
        found = []
        for module in self._modules.values():
            if isinstance(module, (torch.nn.ModuleList, torch.nn.ModuleDict)):
                values = module.values() if isinstance(module, torch.nn.ModuleDict) else module
                found.extend(m for m in values if not isinstance(m, Layer))
            elif module is not None and not isinstance(module, Layer):
                found.append(module)
        return found

    # ------------------------------------------------------------------ weights
    def add_weight(
        self,
        name: str | None = None,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
        **kwargs: Any,
    ) -> Variable:
        """Creates a weight of this layer and returns it: a `tf.Variable` named
        '<layer name>/<name>' (a registered `nn.Parameter`).

        `initializer` is a name ('glorot_uniform', 'zeros', ...), an initializer
        object or a callable `(shape, dtype) -> tensor`; floats default to
        glorot_uniform, integers and booleans to zeros. `trainable=False` makes a
        non-trainable weight (no gradient, still in `state_dict`).
        `regularizer` adds its value to `losses`; `constraint` is applied after
        each optimizer step.
        """
        for key in ("use_resource", "synchronization", "aggregation", "experimental_autocast"):
            kwargs.pop(key, None)
        if kwargs:
            raise TypeError(f"add_weight() got unexpected keyword argument(s) {sorted(kwargs)}")
        name = name or "variable"
        shape = () if shape is None else tuple(int(d) for d in shape)
        dtype = self._variable_dtype if dtype is None else _dtypes.as_dtype(dtype)
        if trainable is None:
            trainable = True
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating_point else "zeros"
        init_fn = _resolve_initializer(initializer)
        with torch.no_grad():
            value = init_fn(shape, dtype=dtype)
        if not isinstance(value, torch.Tensor):
            value = torch.as_tensor(np.asarray(value), dtype=dtype)
        value = value.to(dtype=dtype)
        if tuple(value.shape) != shape:
            value = value.reshape(shape) if value.numel() == int(np.prod(shape)) else value.expand(shape).clone()
        # TF's placement: a `tf.device` block wins; else an accelerator the input the layer is
        # built on lives on (a batch put on 'cuda:1'); else the default device -- host inputs
        # (numpy, strings, CPU tensors) and builds from shapes or symbolic inputs included
        device = _placement.scoped_device()
        if device is None:
            built_on = self._build_device
            device = built_on if built_on is not None and built_on.type != "cpu" else \
                _placement.creation_device()
        if value.device != device:
            value = value.to(device)
        constraint = _resolve_constraint(constraint)
        param = Variable.create(value, bool(trainable), f"{self.name}/{name}", constraint)
        if not self._trainable and param.requires_grad:
            param.requires_grad_(False)
        param._keras_trainable = bool(trainable)
        param._keras_name = param._tf_name
        param._keras_regularizer = _resolve_regularizer(regularizer)
        param._keras_constraint = constraint
        attr = name.replace("/", "_").replace(".", "_").replace(":", "_")
        base, i = attr, 1
        while attr in self._parameters or (attr in self.__dict__) or attr in self._modules:
            attr = f"{base}_{i}"
            i += 1
        self.register_parameter(attr, param)
        self._own_weights.append(param)
        return param

    def _own_and_raw_weights(self) -> list[torch.nn.Parameter]:
        weights = list(self._own_weights)
        own_ids = {id(p) for p in weights}
        # parameters assigned directly (torch style); FSDPStrategy's shards stand in for variables
        for p in () if "_fsdp_managed" in self.__dict__ else self._parameters.values():
            if p is not None and id(p) not in own_ids:
                weights.append(p)
        for module in self._raw_torch_modules():
            weights.extend(module.parameters())
        return weights

    def _collect_weights(self, want_trainable: bool | None) -> list[torch.nn.Parameter]:
        out: list[torch.nn.Parameter] = []
        seen: set[int] = set()
        for layer in self._flatten_layers():
            for p in layer._own_and_raw_weights():
                if id(p) in seen:
                    continue
                if want_trainable is None or p.requires_grad == want_trainable:
                    seen.add(id(p))
                    out.append(p)
        return out

    @property
    def trainable_weights(self) -> list[torch.nn.Parameter]:
        """The weights updated by training: this layer's first, then its sublayers'."""
        return self._collect_weights(True)

    @property
    def non_trainable_weights(self) -> list[torch.nn.Parameter]:
        """The weights not updated by gradient descent (e.g. BatchNorm moving statistics)."""
        return self._collect_weights(False)

    @property
    def weights(self) -> list[torch.nn.Parameter]:
        """All weights: the trainable ones, then the non-trainable ones (Keras' order)."""
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def trainable(self) -> bool:
        """Whether training updates this layer's weights; setting it applies to sublayers."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        value = bool(value)
        for layer in self._flatten_layers():
            layer._trainable = value
            for p in layer._own_and_raw_weights():
                declared = getattr(p, "_keras_trainable", getattr(p, "_tf_trainable", True))
                p.requires_grad_(value and declared and p.is_floating_point())

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """`torch.nn.Module.load_state_dict`; with `strict=True`, missing and unexpected keys
        are reported layer by layer (the torch key, the layer's Keras name and class).

        A model's keys name its layers by the name you gave them or by position
        (`0.kernel`), never by the process-wide default names (`dense_3`), so a state dict
        loads into any instance of the same architecture."""
        try:
            return super().load_state_dict(state_dict, strict=strict, assign=assign)
        except RuntimeError as error:
            if not strict or not isinstance(state_dict, Mapping):
                raise
            own = set(self.state_dict())
            missing = sorted(own - set(state_dict))
            unexpected = sorted(set(state_dict) - own)
            if not (missing or unexpected):
                raise
            detail = describe_key_mismatch(self, missing, unexpected)
            raise RuntimeError(
                f"{error}\nBy layer ({type(self).__name__} {self.name!r}):\n{detail}"
            ) from error

    def get_weights(self) -> list[np.ndarray]:
        """Returns the layer's weights as a list of numpy arrays (the order of `weights`)."""
        return [p.detach().cpu().numpy().copy() for p in self.weights]

    def set_weights(self, weights: list) -> None:
        """Sets the layer's weights from a list of numpy arrays in the order of `weights`.

        Raises ValueError when the number of arrays or a shape does not match,
        naming the layer, the weight and both shapes.
        """
        params = self.weights
        if len(weights) != len(params):
            raise ValueError(
                f'Layer "{self.name}" expects {len(params)} weight(s), but the given weights list '
                f"has {len(weights)}: provided weights: {[tuple(np.shape(w)) for w in weights]}"
            )
        with torch.no_grad():
            for p, w in zip(params, weights):
                value = torch.as_tensor(np.asarray(w))
                if tuple(value.shape) != tuple(p.shape):
                    raise ValueError(
                        f'Layer "{self.name}" weight shape mismatch for '
                        f"{getattr(p, '_keras_name', 'weight')}: expected {tuple(p.shape)}, "
                        f"received {tuple(value.shape)}"
                    )
                p.copy_(value.to(dtype=p.dtype, device=p.device))

    def count_params(self) -> int:
        """Returns the number of scalars in the layer's weights (it must be built)."""
        if not self.built:
            raise ValueError(
                f'You tried to call `count_params` on layer "{self.name}", but the layer isn\'t '
                "built. You can build it manually via: `layer.build(input_shape)`."
            )
        return int(sum(p.numel() for p in self.weights))

    @property
    def losses(self) -> list[torch.Tensor]:
        """Regularization losses: weight regularizers and the last call's activity losses."""
        out = []
        for layer in self._flatten_layers():
            for p in layer._own_weights:
                reg = p._keras_regularizer
                if reg is not None and (p.requires_grad or not getattr(p, "_keras_trainable", True)):
                    out.append(reg(p))
            if layer._activity_losses:
                gen, values = layer._activity_losses
                if gen == CONTEXT.generation:
                    out.extend(values)
        return out

    def add_loss(self, loss: Any) -> None:
        """Adds a loss tensor (or a zero-arg callable) to this layer's `losses` for this call."""
        value = loss() if callable(loss) else loss
        CONTEXT.losses_generation = CONTEXT.generation
        if self._activity_losses and self._activity_losses[0] == CONTEXT.generation:
            self._activity_losses[1].append(value)
        else:
            self._activity_losses = [CONTEXT.generation, [value]]

    # ------------------------------------------------------------------ build
    def build(self, input_shape: Any) -> None:
        """Creates the layer's weights for inputs of `input_shape`; subclasses override it."""
        self.built = True

    def _maybe_build(self, inputs: Any) -> None:
        if self.built:
            return
        t = _first_tensor(inputs)
        self._build_device = t.device if t is not None and t.device.type != "meta" else None
        shapes = _shape_of(inputs)
        if isinstance(shapes, list) and len(shapes) == 1 and not isinstance(inputs, (list, tuple)):
            shapes = shapes[0]
        self._build_shapes = shapes
        self.build(shapes)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def get_build_config(self) -> dict | None:
        """Returns the input shape the layer was built for, to rebuild it on load."""
        if self._build_shapes is None:
            return None
        return {"input_shape": _jsonable_shape(self._build_shapes)}

    def build_from_config(self, config: dict | None) -> None:
        """Builds the layer from `get_build_config()`'s output."""
        if config and not self.built and config.get("input_shape") is not None:
            shape = _unjson_shape(config["input_shape"])
            self._build_shapes = shape
            self.build(shape)
            self.built = True

    # ------------------------------------------------------------------ calling
    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation; the base class returns its inputs unchanged."""
        return inputs

    def forward(self, inputs: Any = _NO_INPUTS, *args: Any, **kwargs: Any) -> Any:
        """torch's entry point: runs `call` (use `layer(x)` to also build and check).

        The first positional parameter is named, so that `torch.export.export(model, (x,),
        dynamic_shapes=({0: Dim("batch")},))` matches its spec to the inputs; `forward()`
        without positional inputs passes its keywords on to `call` unchanged."""
        if inputs is _NO_INPUTS:
            return self.call(*args, **kwargs)
        return self.call(inputs, *args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Builds the layer on its first input, checks `input_spec`, threads `training` and
        masks to nested layers and calls `call` -- in the phases of `_call_phases`.

        The fast path, the call of every layer inside a model's `call` (in `fit`, `evaluate`,
        `predict` or a `model_fn`) and of the layers a `model_fn` calls one after another: a
        built layer called with one plain torch tensor of its compute dtype (so no `.numpy()`
        rule and no graph node), no mask, no activity regularizer, no torch hooks and an input
        spec that the cached check passes. Each phase would then do nothing but pass `training`
        on (and, for a top-level call, start a new generation of activity losses and tell the
        active model_fn scope the layer was used), so the call goes straight to `forward`.
        """
        if len(args) == 1 and not kwargs:
            inputs = args[0]
            context = CONTEXT
            if (
                (
                    (
                        type(inputs) is torch.Tensor  # not symbolic, not a Variable, no conversion
                        and inputs.dtype == self._compute_dtype  # no cast
                        and getattr(inputs, "_keras_mask", None) is None
                        and self._passes_fast_spec(inputs)
                    )
                    or (type(inputs) is dict and self._takes_plain_feature_dict(inputs))
                )
                and self.built
                and self.activity_regularizer is None
                and not self._overrides_compute_mask
                and not _has_hooks(self)
            ):
                training = context.training
                if not context.depth and not context.tracing:  # top level: as `_call_in_context`
                    context.generation += 1
                    scope = current_scope()
                    if scope is not None:
                        scope.record_layer_call(self)
                context.depth += 1
                try:
                    if training is not None and self._call_accepts_training:
                        outputs = self.forward(inputs, training=training)
                    elif self.training and self._call_accepts_training and _module_mode_decides():
                        outputs = self.forward(inputs, training=True)  # model.train(), no front
                    else:
                        outputs = self.forward(inputs)
                finally:
                    context.depth -= 1
                    context.training = training
                return outputs
        return self._call_phases(args, kwargs)

    def _takes_plain_feature_dict(self, inputs: dict) -> bool:
        """True when a dict input needs none of the general call's phases: a layer without an
        input spec or masks (the feature-column layers) called on a dict of plain torch tensors
        and numpy string arrays -- what `_cast_inputs` passes through unchanged, and nothing
        symbolic (a dict of `KerasTensor`s records a graph node on the general path). At least
        one value is a tensor: a dict of numpy arrays alone follows the `.numpy()` rule."""
        if self._input_spec is not None or self._call_accepts_mask or self.supports_masking:
            return False
        has_tensor = False
        for value in inputs.values():
            kind = type(value)
            if kind is torch.Tensor:
                if getattr(value, "_keras_mask", None) is not None:
                    return False
                has_tensor = True
            elif not isinstance(value, np.ndarray) or value.dtype.kind not in "OUS":
                return False  # subclasses count: `data.encoded_strings.EncodedStrings` is an ndarray by contract
        return has_tensor

    def _passes_fast_spec(self, inputs: torch.Tensor) -> bool:
        """True when there is no input spec, or the spec's cached cheap check passes."""
        spec = self._input_spec
        if spec is None:
            return True
        if type(spec) is not InputSpec:
            return False
        fast = spec._fast
        if fast is None:
            fast = fast_spec_of(spec)
        if fast is False or inputs.ndim < fast[0]:
            return False
        shape = inputs.shape
        for axis, size in fast[1]:
            if shape[axis] != size:
                return False
        return True

    def _call_phases(self, args: tuple, kwargs: dict) -> Any:
        """The general call: normalise the arguments, record a graph node for symbolic inputs,
        apply the `.numpy()` rule, then `_call_eager`. (Each phase is skipped inline when its
        condition already says it has nothing to do: a top-level call on a tensor stays cheap.)"""
        if not args:
            args = self._normalize_call_args(args, kwargs)
        if (type(args[0]) is not torch.Tensor or len(args) > 1) and self._has_symbolic_args(args):
            return self._symbolic_call(args, kwargs)
        if type(args[0]).__name__ == "RaggedTensor":  # tf.RaggedTensor inputs: keras/_ragged_inputs.py
            from torchestimator.keras._ragged_inputs import call_on_ragged

            return call_on_ragged(self, args, kwargs)
        if type(args[0]).__name__ == "SparseTensor":  # tf.SparseTensor inputs: keras/_sparse_inputs.py
            from torchestimator.keras._sparse_inputs import call_on_sparse

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
        if type(inputs) is not torch.Tensor or inputs.dtype != self._compute_dtype:
            args = self._cast_inputs(args)
            inputs = args[0]
        if not self.built:
            self._maybe_build(inputs)
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
        layer is in torch train mode; the module mode is not inherited, each nested layer reads
        its own -- and the call depth counted; a top-level call starts a new generation of
        activity losses and is recorded by an active model_fn/fit scope."""
        context = CONTEXT
        previous_training = context.training
        if self._call_accepts_training:
            training = kwargs.get("training")
            if training is None:
                if previous_training is not None:
                    kwargs["training"] = previous_training
                elif self.training and _module_mode_decides():
                    kwargs["training"] = True
            else:
                if isinstance(training, torch.Tensor):
                    training = bool(training)
                    kwargs["training"] = training
                context.training = training
        elif "training" in kwargs:
            training = kwargs.pop("training")
            if training is not None:
                context.training = bool(training)
        if context.depth == 0 and not context.tracing:
            context.generation += 1
            scope = current_scope()
            if scope is not None:
                scope.record_layer_call(self)
        context.depth += 1
        try:
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
        from torchestimator.keras.engine import shape_inference
        from torchestimator.keras.engine.node import Node

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

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns the output shape for `input_shape` (inferred by a shape-only trace)."""
        from torchestimator.keras.engine import shape_inference

        spec = _shape_to_spec(input_shape, self._compute_dtype)
        out = shape_inference.compute_output_spec(self, (spec,), {})
        return nest.map_structure(lambda t: t.shape, out)

    def compute_output_signature(self, input_signature: Any) -> Any:
        """Returns `TensorSpec`s of the outputs for `TensorSpec` inputs."""
        shapes = nest.map_structure(lambda s: s.shape, input_signature)
        out = self.compute_output_shape(shapes)
        return nest.map_structure(lambda s: _dtypes.TensorSpec(s, self._compute_dtype), out)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Returns the output mask: the input mask when the layer supports masking, else None."""
        return mask if self.supports_masking else None

    # ------------------------------------------------------------------ graph info
    def _node_attr(self, attr: str) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(
                f'Layer "{self.name}" has never been called on symbolic inputs and thus has no '
                f"defined {attr}."
            )
        node = self._inbound_nodes[0]
        if attr in ("input", "input_shape"):
            value = node.call_args[0]
        else:
            value = node.outputs
        if attr.endswith("shape"):
            return nest.map_structure(lambda t: t.shape, value)
        return value

    @property
    def input(self) -> Any:
        """The symbolic input of the layer's first call."""
        return self._node_attr("input")

    @property
    def output(self) -> Any:
        """The symbolic output of the layer's first call."""
        return self._node_attr("output")

    @property
    def input_shape(self) -> Any:
        """The input shape of the layer's first call."""
        return self._node_attr("input_shape")

    @property
    def output_shape(self) -> Any:
        """The output shape of the layer's first call."""
        return self._node_attr("output_shape")

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns the layer's constructor arguments as a JSON-able dict."""
        config: dict[str, Any] = {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": self._dtype_policy_name,
        }
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = list(self._batch_input_shape)
        if type(self).get_config is Layer.get_config and type(self).__init__ is not Layer.__init__:
            extra = [
                p for p in inspect.signature(type(self).__init__).parameters.values()
                if p.name not in ("self", "trainable", "name", "dtype", "kwargs", "args")
                and p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
            ]
            if extra:
                raise NotImplementedError(
                    f"Layer {type(self).__name__} has arguments {[p.name for p in extra]} in "
                    "__init__() but does not override get_config(); define get_config() returning "
                    "them so the layer can be saved and cloned."
                )
        return config

    @classmethod
    def from_config(cls, config: dict) -> Layer:
        """Creates a layer from the output of `get_config()`."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    def extra_repr(self) -> str:
        return f"name={self.name}"
