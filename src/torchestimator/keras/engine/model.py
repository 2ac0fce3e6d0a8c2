"""`Model`: a layer with training (`compile`/`fit`/`evaluate`/`predict`) and saving.

`Model(inputs, outputs)` returns a functional model; subclassing `Model` and
defining `call` gives a subclassed model whose layers are tracked as attributes.
"""

from __future__ import annotations

from typing import Any

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.trainer import Trainer

_FUNCTIONAL_SUBCLASSES: dict = {}


class Model(Trainer, Layer):
    """Groups layers into an object with training and inference features.

    `tf.keras.Model(inputs, outputs, name=None)` builds a functional model; a
    subclass that defines `call` is a subclassed model.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Model:
        functional_args = len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs
        if functional_args:
            from torchestimator.keras.engine.functional import Functional

            if cls is Model:
                return Functional.__new__(Functional)
            if not issubclass(cls, Functional) and cls.call is Model.call:
                # A subclass that only overrides train_step etc., built functionally (TF guides).
                hybrid = _FUNCTIONAL_SUBCLASSES.get(cls)
                if hybrid is None:
                    hybrid = type(cls.__name__, (cls, Functional), {"__module__": cls.__module__})
                    _FUNCTIONAL_SUBCLASSES[cls] = hybrid
                return Functional.__new__(hybrid)
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any):
        if args or "inputs" in kwargs or "outputs" in kwargs:
            from torchestimator.keras.engine.functional import Functional

            if not isinstance(self, Functional):
                raise TypeError(
                    f"{type(self).__name__} is a subclassed model; it cannot also take "
                    "`inputs`/`outputs`. Define call() instead, or use tf.keras.Model(inputs, outputs)."
                )
        super().__init__(**kwargs)
        Trainer._init_trainer(self)

    # ------------------------------------------------------------------ weights
    @property
    def weights(self) -> list:
        """All weights in Keras 2's `Model.weights` order (also `get_weights()`'s): layer by
        layer, each layer's `weights` (trainable, then non-trainable: a BatchNormalization's
        moving statistics next to its gamma and beta), then the model's own; each once."""
        out: list = []
        seen: set[int] = set()
        own = self._own_and_raw_weights()
        groups = [layer.weights for layer in self.layers]
        groups.append([p for p in own if p.requires_grad] + [p for p in own if not p.requires_grad])
        for group in groups:
            for p in group:
                if id(p) not in seen:
                    seen.add(id(p))
                    out.append(p)
        return out

    variables = weights

    # ------------------------------------------------------------------ layers
    @property
    def layers(self) -> list[Layer]:
        """The model's direct sublayers, in the order they were assigned."""
        return self._direct_sublayers()

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """Returns a layer by `name` or by `index` (in `layers` order)."""
        if index is not None and name is not None:
            raise ValueError(
                f"Provide only a layer name or a layer index; received index={index}, name={name!r}"
            )
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(layers)} layers."
                )
            return layers[index]
        if name is not None:
            for layer in layers:
                if layer.name == name:
                    return layer
            raise ValueError(
                f"No such layer: {name}. Existing layers are: {[layer.name for layer in layers]}."
            )
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    @property
    def inputs(self) -> list | None:
        """The symbolic inputs of a functional model; None for an unbuilt subclassed model."""
        return None

    @property
    def outputs(self) -> list | None:
        """The symbolic outputs of a functional model; None for a subclassed model."""
        return None

    @property
    def input_names(self) -> list[str]:
        """The names of the model's inputs."""
        return []

    @property
    def output_names(self) -> list[str]:
        """The names of the model's outputs."""
        return ["output_1"]

    def build(self, input_shape: Any) -> None:
        """Builds a subclassed model's weights by running it once on zeros of `input_shape`."""
        if self.built:
            return
        if type(self).call is Layer.call or type(self).call is Model.call:
            self.built = True
            return
        from torchestimator.keras.engine import shape_inference
        from torchestimator.keras.engine.layer_utils import _shape_to_spec

        self.built = True  # the trace below must not come back here
        spec = _shape_to_spec(input_shape, self._compute_dtype)
        self._build_shapes = input_shape
        try:
            shape_inference._run(self, (spec,), {}, 0, "cpu")
        except Exception:
            self.built = False
            raise

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        """The model's forward pass; a subclassed model must override it."""
        raise NotImplementedError(
            f"Model {type(self).__name__} has no call(): a subclassed model must define "
            "call(self, inputs, training=None)."
        )

    def summary(
        self,
        line_length: int | None = None,
        positions: list[float] | None = None,
        print_fn: Any = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        """Prints Keras' summary table: layers, output shapes, parameter counts and totals."""
        from torchestimator.keras.engine.summary import print_summary

        print_summary(self, line_length, positions, print_fn, expand_nested, show_trainable)

    def get_config(self) -> dict:
        """Returns the model's config; a subclassed model must override it to be serializable."""
        return Layer.get_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Model:
        """Creates a model from its config: a functional graph config rebuilds the graph."""
        if "input_layers" in config and "layers" in config:
            from torchestimator.keras.engine.functional import Functional

            target = cls if issubclass(cls, Functional) else Functional
            return target.from_config(config, custom_objects=custom_objects)
        return cls(**config)

    def to_json(self, **kwargs: Any) -> str:
        """Returns the model's architecture as a JSON string (`class_name` and `config`)."""
        import json

        from torchestimator.keras.saving._registry import serialize_keras_object

        return json.dumps(serialize_keras_object(self), **kwargs)
