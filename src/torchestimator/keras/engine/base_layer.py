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

Where none applies (inside a `model_fn`, or in a shape trace) the call's own default
decides: None/False for most layers, True for the random augmentation layers (`RandomFlip`,
..., as Keras 2.15's `training=True`), which augment then.

Keras layers start in eval mode (`training` is False after construction), so a freshly
built model called as `model(x)` runs inference, as in TF; `fit`, `evaluate`, `predict`
and the `*_on_batch` methods switch the modules' mode while they run and leave every
module in the mode they found it in.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine.object_scope import ReusableMeta, current_scope
from torchestimator._ops import nest
from torchestimator._variable import Variable
from torchestimator.keras._registry import register_builtin
from torchestimator.keras.backend import _state
from torchestimator.keras.engine import shape_inference
from torchestimator.keras.engine._layer_call import (  # noqa: F401 (re-exported: image_preprocessing)
    REDUCED_FLOATS,
    LayerCallMixin,
    _at_top_level,
    _module_mode_decides,
)
from torchestimator.keras.engine._layer_extras import LayerExtrasMixin
from torchestimator.keras.engine._layer_weights import LayerWeightsMixin
from torchestimator.keras.engine.call_context import CONTEXT, WEIGHTS_OFF_HOST
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.engine.layer_utils import (
    _batch_input_shape_from_kwargs,
    _first_tensor,
    _has_hooks,
    _jsonable_shape,
    _resolve_regularizer,
    _shape_of,
    _shape_to_spec,
    _unjson_shape,
    fast_spec_of,
)
from torchestimator.keras.mixed_precision._policy import global_policy_name
from torchestimator.train._object_graph import register_keras_class

_NO_INPUTS: Any = object()  # `forward()` called without positional inputs

_BASE_KWARGS = {
    "input_shape", "batch_input_shape", "batch_size", "input_dim", "input_length",
    "weights", "activity_regularizer", "autocast", "dynamic",
}


class Layer(LayerWeightsMixin, LayerCallMixin, LayerExtrasMixin, torch.nn.Module,
            metaclass=ReusableMeta):
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

    # set per subclass by __init_subclass__; these are the base class's own (a plain
    # `Layer()`, the identity layer)
    _call_accepts_training = False
    #: True when `call`'s `training` defaults to True (Keras' random augmentation layers): a
    #: call that gets no flag from its caller, an enclosing call or a Keras front passes the
    #: layer's torch mode, so `eval()` still stops it where the default would not.
    _call_training_default_true = False
    _call_accepts_mask = False
    _call_first_arg = "inputs"
    _overrides_compute_output_shape = False
    _overrides_compute_mask = False
    #: True for a layer whose call runs on its input's device, wherever its weights are (a
    #: preprocessing layer used in a host `tf.data` map): top-level calls leave its inputs there.
    _follows_input_device = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        try:
            params = inspect.signature(cls.call).parameters
        except (TypeError, ValueError):
            params = {}
        var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        cls._call_accepts_training = "training" in params or var_kw
        training_param = params.get("training")
        cls._call_training_default_true = training_param is not None and training_param.default is True
        cls._call_accepts_mask = "mask" in params
        cls._call_first_arg = next(
            (n for n in list(params)[1:2]), "inputs"
        )
        cls._overrides_compute_output_shape = (
            cls.compute_output_shape is not Layer.compute_output_shape
        )
        cls._overrides_compute_mask = cls.compute_mask is not Layer.compute_mask
        if cls.__module__.startswith("torchestimator.") and getattr(
                cls, "_builtin_registration", True):
            register_builtin(cls)  # (a TF1 twin, compat.v1.layers.Dense, is not: it saves as Keras')

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
        active model_fn scope the layer was used), so the call goes straight to `forward`. (A
        top-level call of a layer of a reduced compute dtype takes the general path: a mixed
        model's own call runs under its autocast there.)
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
                if (WEIGHTS_OFF_HOST[0] and not context.tracing and type(inputs) is torch.Tensor
                        and inputs.device.type == "cpu"):
                    return self._call_phases(args, kwargs)  # host input: maybe to the weights
                if not context.depth and not context.tracing:  # top level: as `_call_in_context`
                    if self._compute_dtype in REDUCED_FLOATS:  # a mixed model's autocast: there
                        return self._call_phases(args, kwargs)
                    context.generation += 1
                    context.outer = self
                    scope = current_scope()
                    if scope is not None:
                        scope.record_layer_call(self)
                context.depth += 1
                try:
                    if training is not None and self._call_accepts_training:
                        outputs = self.forward(inputs, training=training)
                    elif ((self.training or self._call_training_default_true)
                          and self._call_accepts_training and _module_mode_decides()):
                        # model.train()/eval(), no front
                        outputs = self.forward(inputs, training=self.training)
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

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns the output shape for `input_shape` (inferred by a shape-only trace)."""
        spec = _shape_to_spec(input_shape, self._compute_dtype)
        out = shape_inference.compute_output_spec(self, (spec,), {})
        return nest.map_structure(lambda t: t.shape, out)

    def compute_output_signature(self, input_signature: Any) -> Any:
        """Returns `TensorSpec`s of the outputs for `TensorSpec` inputs."""
        shapes = nest.map_structure(lambda s: s.shape, input_signature)
        out = self.compute_output_shape(shapes)
        dtype = self._compute_dtype or nest.flatten(input_signature)[0].dtype

        def to_spec(shape: Any) -> Any:  # a shape is a tuple: nest would walk into it
            if shape is None or hasattr(shape, "as_list") or shape_inference._is_shape(shape):
                return _dtypes.TensorSpec(shape, dtype)
            if isinstance(shape, dict):
                return {k: to_spec(v) for k, v in shape.items()}
            return type(shape)(to_spec(v) for v in shape)

        return to_spec(out)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Returns the output mask: the input mask when the layer supports masking, else None."""
        return mask if self.supports_masking else None

    # ------------------------------------------------------------------ graph info
    def __getattr__(self, name: str) -> Any:
        """torch's lookup of weights, sublayers and buffers. When it misses, and `name` is a
        property of the layer that raised AttributeError (`input` of a layer never called on
        symbolic inputs), that property's own error is raised again instead of torch's bare
        "object has no attribute"."""
        try:
            return torch.nn.Module.__getattr__(self, name)
        except AttributeError:
            prop = getattr(type(self), name, None)
            if isinstance(prop, property) and prop.fget is not None:
                return prop.fget(self)
            raise

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


register_keras_class("layer", Layer)  # the object graph of tf.train.Checkpoint walks it
