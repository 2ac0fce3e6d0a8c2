"""What a `Layer` holds: its sublayers, its weights and its losses.

`LayerWeightsMixin` is mixed into `Layer` (`base_layer.py`, whose module docstring states
the rules): it wraps lists and dicts of modules assigned as attributes so torch tracks them,
walks the sublayers, creates weights (`add_weight`: a `tf.Variable` registered as an
`nn.Parameter`, placed as TF places it), collects them in Keras' order (`weights`,
`trainable_weights`, ...), applies `trainable`, reads and writes them as numpy arrays, reports
a state dict's mismatched keys layer by layer, and gathers the regularization and activity
losses of the current call generation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops import nest
from torchestimator._ops.control_ops import _context as _placement
from torchestimator._variable import Variable
from torchestimator.keras.backend import _state
from torchestimator.keras.engine.call_context import CONTEXT, WEIGHTS_OFF_HOST
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.engine.layer_utils import (
    _resolve_constraint,
    _resolve_initializer,
    _resolve_regularizer,
    describe_key_mismatch,
)

if TYPE_CHECKING:
    from torchestimator.keras.engine.base_layer import Layer


class LayerWeightsMixin:
    """`Layer`'s sublayer and weight tracking, weight creation and losses.

    Only `Layer` mixes it in (before `torch.nn.Module`), so an instance of this mixin is a
    `Layer`: the sublayer walks test `isinstance(module, LayerWeightsMixin)` for that.
    """

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
            if isinstance(module, LayerWeightsMixin):
                found.append(module)
            elif isinstance(module, (torch.nn.ModuleList, torch.nn.ModuleDict)):
                values = module.values() if isinstance(module, torch.nn.ModuleDict) else module
                found.extend(m for m in values if isinstance(m, LayerWeightsMixin))
        return found

    def _raw_torch_modules(self) -> list[torch.nn.Module]:
        """Plain torch modules (not Keras layers) held directly by this layer."""
        found = []
        for module in self._modules.values():
            if isinstance(module, (torch.nn.ModuleList, torch.nn.ModuleDict)):
                values = module.values() if isinstance(module, torch.nn.ModuleDict) else module
                found.extend(m for m in values if not isinstance(m, LayerWeightsMixin))
            elif module is not None and not isinstance(module, LayerWeightsMixin):
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
        if device.type not in ("cpu", "meta"):
            WEIGHTS_OFF_HOST[0] = True  # host inputs of top-level calls now need a look
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

    def add_loss(self, losses: Any, **kwargs: Any) -> None:
        """Adds loss tensor(s) to this layer's `losses` for this call, as TF's `add_loss`.

        `losses` is a tensor, a zero-argument callable returning one, or a (nested) list or
        tuple of those; `None` entries are skipped and plain numbers become float tensors.
        `inputs=` (TF1's argument) is accepted and ignored, as TF 2.15 ignores it; any other
        keyword raises `TypeError`.
        """
        kwargs.pop("inputs", None)
        if kwargs:
            raise TypeError(f"Unknown keyword arguments: {kwargs.keys()}")
        values = []
        for loss in nest.flatten(losses):
            value = loss() if callable(loss) else loss
            if value is None:
                continue
            if isinstance(value, KerasTensor):
                raise NotImplementedError(
                    f"{type(self).__name__}.add_loss() got a symbolic tensor ({value!r}): a loss "
                    "of a functional model's graph is not supported. Add it inside a layer's "
                    "call() (self.add_loss(...) on the call's tensors) instead."
                )
            if not isinstance(value, torch.Tensor):
                value = torch.as_tensor(value, dtype=_dtypes.as_dtype(_state.floatx()))
            values.append(value)
        if not values:
            return
        CONTEXT.losses_generation = CONTEXT.generation
        if self._activity_losses and self._activity_losses[0] == CONTEXT.generation:
            self._activity_losses[1].extend(values)
        else:
            self._activity_losses = [CONTEXT.generation, values]
