"""`Sequential`: a linear stack of layers, a functional model built from a list.

When the input shape is known (an `Input` first, or `input_shape` /
`input_dim` / `batch_input_shape` on the first layer) the graph is built as
layers are added; otherwise it is built from the first batch it sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator.keras._registry import deserialize_keras_object, serialize_keras_object
from torchestimator.keras.backend import _state
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.functional import Functional
from torchestimator.keras.engine.input_layer import Input, InputLayer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.engine.model import Model


class Sequential(Functional):
    """`Sequential(layers=None, name=None)`: each layer's output is the next one's input.

    `add(layer)` appends a layer, `pop()` removes the last one.
    """

    _is_sequential = True

    #: True when the model was first called on a dict of features (`DenseFeatures` first):
    #: the layers then run one after another instead of through a graph.
    _feature_dict_stack = False
    #: True when the input shape was inferred from a call or `build()` (no `Input` and no
    #: `input_shape` on the first layer): a later input of another shape relaxes it.
    _inferred_input = False

    def __init__(self, layers: list | None = None, name: str | None = None, **kwargs: Any):
        Model.__init__(self, name=name or _state.unique_object_name("sequential"), **kwargs)
        self._stack: list[Layer] = []
        self._input_layer_box: list[InputLayer] = []
        self._input_tensors: list = []
        self._output_tensors: list = []
        self._nested_inputs = self._nested_outputs = None
        self._graph_layers: list = []
        self.built = False
        # The graph is built once for the whole list (not once per layer: that made building
        # a deep stack take time cubic in its depth).
        self._defer_rebuild = True
        try:
            for layer in layers or []:
                self.add(layer)
        finally:
            self._defer_rebuild = False
        if layers:
            self._rebuild()

    @property
    def _input_layer(self) -> InputLayer | None:
        return self._input_layer_box[0] if self._input_layer_box else None

    def _set_input_layer(self, layer: InputLayer | None) -> None:
        # kept in a list so that torch does not register it as a submodule
        self._input_layer_box[:] = [layer] if layer is not None else []

    # ------------------------------------------------------------------ building
    def add(self, layer: Any) -> None:
        """Appends `layer` (or the InputLayer of a symbolic tensor from `Input`) to the stack."""
        if isinstance(layer, KerasTensor):
            history = layer._keras_history
            if history is None or not isinstance(history.layer, InputLayer):
                raise TypeError(
                    "Sequential.add() accepts layers or the output of tf.keras.Input(); "
                    f"received {layer!r}"
                )
            layer = history.layer
        if not isinstance(layer, torch.nn.Module):
            raise TypeError(
                f"The added layer must be an instance of class Layer. Received: layer={layer!r} "
                f"of type {type(layer).__name__}."
            )
        if isinstance(layer, InputLayer):
            if self._stack or self._input_layer is not None:
                raise ValueError(
                    f'Sequential model "{self.name}": an InputLayer may only be the first layer.'
                )
            self._set_input_layer(layer)
            self._rebuild()
            return
        if not isinstance(layer, Layer):
            raise TypeError(
                f"Sequential only stacks Keras layers; received a plain torch module "
                f"{type(layer).__name__}. Wrap it in a Layer subclass."
            )
        names = [existing.name for existing in self._stack]
        if layer.name in names:
            raise ValueError(
                f'All layers added to a Sequential model should have unique names. Name "{layer.name}" '
                "is already the name of a layer in this model. Update the `name` argument to pass a "
                "unique name."
            )
        self._stack.append(layer)
        if self._input_layer is None and not self._stack[:-1]:
            shape, dtype = _first_input(layer)
            if shape is not None:
                self._set_input_layer(Input(batch_shape=shape, dtype=dtype,
                                            name=_input_name(layer))._keras_history.layer)
        self._rebuild()

    def pop(self) -> None:
        """Removes the last layer of the model."""
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        for key, module in list(self._modules.items()):
            if module is layer:
                del self._modules[key]
        self._rebuild()

    def _rebuild(self) -> None:
        if getattr(self, "_defer_rebuild", False):
            return
        if self._input_layer is None or not self._stack:
            self.built = False
            if self._input_layer is not None and not self._stack:
                self._build_shapes = self._input_layer._batch_input_shape
            return
        x = self._input_layer._output_tensor
        for layer in self._stack:
            x = layer(x)
        for key, module in list(self._modules.items()):
            if isinstance(module, Layer) and not any(module is m for m in self._stack):
                del self._modules[key]
        self._init_graph(self._input_layer._output_tensor, x)

    def build(self, input_shape: Any = None) -> None:
        """Builds the model for inputs of `input_shape` (with the batch dimension)."""
        if self.built:
            return
        if input_shape is None:
            raise ValueError(
                f'Sequential model "{self.name}" cannot be built: it has no input shape. Pass '
                "`input_shape` to the first layer, start with tf.keras.Input(), or call "
                "build((None, ...))."
            )
        if isinstance(input_shape, KerasTensor):
            input_shape = input_shape.shape
        self._set_input_layer(Input(batch_shape=tuple(input_shape),
                                    name=_input_name(self._stack[0]) if self._stack else None
                                    )._keras_history.layer)
        self._inferred_input = True
        self._rebuild()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._feature_dict_stack:
            return super().__call__(*args, **kwargs)
        if not self.built and self._stack:
            inputs = args[0] if args else next(iter(kwargs.values()))
            if isinstance(inputs, Mapping):
                # A dict of features (TF's `Sequential([DenseFeatures(columns), ...])`): there is
                # no one input shape to build a graph on, so the layers run one after another.
                self._feature_dict_stack = True
                # their weights are the model's (no graph registers them)
                self._register_layers(self._stack)
                self.built = True
                return super().__call__(*args, **kwargs)
            # A tensor, or a symbolic one from Input: the model builds its own graph for that
            # shape and is then called as one layer (Keras' deferred build; a functional model
            # built on it lists this Sequential as one layer, as Keras does).
            if not isinstance(inputs, KerasTensor):
                self._record_save_spec(inputs)  # the first call's inputs (`save_spec`)
            shape = (None,) + tuple(getattr(inputs, "shape", ()))[1:]
            dtype = getattr(inputs, "dtype", _state.floatx())
            name = _input_name(self._stack[0])
            if isinstance(dtype, torch.dtype) and not dtype.is_floating_point:
                self._set_input_layer(Input(batch_shape=shape, dtype=dtype, name=name)._keras_history.layer)
            else:
                self._set_input_layer(Input(batch_shape=shape, name=name)._keras_history.layer)
            self._inferred_input = True
            self._rebuild()
        elif self._inferred_input and self._input_layer is not None and self._stack:
            inputs = args[0] if args else next(iter(kwargs.values()), None)
            shape = getattr(inputs, "shape", None)
            if shape is not None and not isinstance(inputs, Mapping):
                self._relax_input_shape(tuple(shape))
        return super().__call__(*args, **kwargs)

    def _relax_input_shape(self, shape: tuple) -> None:
        """Keras 2.15's `_build_graph_network_for_inferred_shape`: an input whose shape differs
        from the inferred one (same rank) rebuilds the graph on the relaxed shape, each
        differing axis None (`Sequential([Dense(1)])` fitted on `(32, 1, 19)` windows then
        predicts on `(32, 24, 19)`, TF's time-series tutorial). If the layers cannot take the
        relaxed shape the graph stays as it was, and the call reports the mismatch."""
        previous = self._input_layer
        old = tuple(previous._batch_input_shape)
        if len(old) != len(shape) or all(o is None or o == s for o, s in zip(old[1:], shape[1:])):
            return
        relaxed = (None,) + tuple(o if o == s else None for o, s in zip(old[1:], shape[1:]))
        self._set_input_layer(Input(batch_shape=relaxed, dtype=previous.dtype,
                                    name=previous.name)._keras_history.layer)
        try:
            self._rebuild()
        except Exception:  # the layers need the old shape: keep the old graph
            self._set_input_layer(previous)
            self._rebuild()

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        """Runs the stacked layers on `inputs` (through the graph when it has one)."""
        if not self._feature_dict_stack:
            return super().call(inputs, training=training, mask=mask)
        x = inputs
        for layer in self._stack:
            x = layer(x, training=training) if layer._call_accepts_training else layer(x)
        return x

    # ------------------------------------------------------------------ structure
    @property
    def layers(self) -> list[Layer]:
        """The stacked layers (the InputLayer excluded, as Keras)."""
        return list(self._stack)

    @property
    def input_names(self) -> list[str]:
        """The input name(s)."""
        return [self._input_layer.name] if self._input_layer is not None else []

    @property
    def output_names(self) -> list[str]:
        """The name of the last layer."""
        return [self._stack[-1].name] if self._stack else []

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns `{"name", "layers": [layer configs]}` (an InputLayer first when the shape is known)."""
        layers = []
        if self._input_layer is not None:
            layers.append(serialize_keras_object(self._input_layer))
        layers.extend(serialize_keras_object(layer) for layer in self._stack)
        return {"name": self.name, "trainable": self.trainable, "layers": layers}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Sequential:
        """Rebuilds the model from `get_config()`'s output."""
        model = cls(name=config.get("name"))
        for layer_config in config["layers"]:
            layer = deserialize_keras_object(layer_config, custom_objects=custom_objects)
            model.add(layer)
        if config.get("trainable") is False:
            model.trainable = False
        return model


def _first_input(layer: Layer) -> tuple[Any, Any]:
    """The batch input shape and dtype a first layer gives a Sequential, or (None, None): its
    own `input_shape`, or, for a model (a Functional or Sequential base), its first layer's,
    as Keras' `get_input_shape_and_dtype` finds them."""
    while getattr(layer, "_batch_input_shape", None) is None and isinstance(layer, Functional):
        inner = layer.layers
        if not inner:
            return None, None
        layer = inner[0]
    shape = getattr(layer, "_batch_input_shape", None)
    if shape is None:
        return None, None
    if isinstance(layer, InputLayer):
        return shape, layer.dtype
    return shape, _input_dtype(layer)


def _input_dtype(layer: Layer) -> Any:
    if type(layer).__name__ == "Embedding":  # ids, not floats
        return _dtypes.int64
    return None


def _input_name(first_layer: Any) -> str:
    """The name Keras 2.15 gives the Input a Sequential makes itself: `<first layer>_input`
    (`dense_input`), which feature dicts and serving signatures are keyed by."""
    return f"{first_layer.name}_input"
