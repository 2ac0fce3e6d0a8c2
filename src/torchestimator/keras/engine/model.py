"""`Model`: a layer with training (`compile`/`fit`/`evaluate`/`predict`) and saving.

`Model(inputs, outputs)` returns a functional model; subclassing `Model` and
defining `call` gives a subclassed model whose layers are tracked as attributes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from torchestimator.keras._registry import serialize_keras_object
from torchestimator.keras.engine import shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.layer_utils import _shape_to_spec
from torchestimator.keras.engine.summary import print_summary
from torchestimator.keras.engine.trainer import Trainer

_FUNCTIONAL_SUBCLASSES: dict = {}  # a subclass of Model -> its functional hybrid
_HYBRID_BASES: dict = {}  # the functional hybrid -> the subclass it was made for


def _functional_hybrid(cls: type) -> type:
    """The class of a functional model built from a subclass `cls` of Model that only
    overrides `train_step` etc. (`cls` and `Functional` both), made once per subclass."""
    hybrid = _FUNCTIONAL_SUBCLASSES.get(cls)
    if hybrid is None:
        from torchestimator.keras.engine.functional import (  # lazy: subclass (keras.engine.functional subclasses Model, which builds it)
            Functional,
        )

        hybrid = type(cls.__name__, (cls, Functional), {"__module__": cls.__module__})
        _FUNCTIONAL_SUBCLASSES[cls] = hybrid
        _HYBRID_BASES[hybrid] = cls
    return hybrid


def _new_functional_hybrid(cls: type) -> Model:
    """Unpickling: an empty instance of the functional hybrid of `cls` (pickle names `cls`,
    which is importable; the hybrid class is made at run time and is not)."""
    from torchestimator.keras.engine.functional import (  # lazy: subclass (keras.engine.functional subclasses Model, which builds it)
        Functional,
    )

    return Functional.__new__(_functional_hybrid(cls))


def _keeps_module_modes(front: Callable) -> Callable:
    """Wraps a Keras front (`fit`, `evaluate`, ...) of `Trainer` so that every module of the
    model is left in the torch mode (`train()`/`eval()`) it had before the call: the front
    switches modes while it runs, and a plain torch loop around it must not find its model
    silently switched to eval (or, after `train_on_batch`, to train) mode afterwards."""

    @functools.wraps(front)
    def run(self: Model, *args: Any, **kwargs: Any) -> Any:
        modes = [(module, module.training) for module in self.modules()]
        try:
            return front(self, *args, **kwargs)
        finally:
            for module, mode in modes:
                if module.training is not mode:  # (as `Module.train` sets it, minus its checks)
                    object.__setattr__(module, "training", mode)

    return run


class Model(Trainer, Layer):
    """Groups layers into an object with training and inference features.

    `tf.keras.Model(inputs, outputs, name=None)` builds a functional model; a
    subclass that defines `call` is a subclassed model.
    """

    #: Keras' flags: a model built from symbolic inputs and outputs (`Functional` and its
    #: subclasses, `Sequential` among them) is a graph network; a subclassed one is not.
    _is_graph_network = False
    _is_sequential = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Model:
        functional_args = len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs
        if functional_args:
            from torchestimator.keras.engine.functional import (  # lazy: subclass (keras.engine.functional subclasses Model, which builds it)
                Functional,
            )

            if cls is Model:
                return Functional.__new__(Functional)
            if (not issubclass(cls, Functional) and cls.call is Model.call
                    and cls.__init__ is Model.__init__):
                # A subclass that only overrides train_step etc., built functionally (TF guides).
                # One with its own __init__ takes its own arguments (the text-generation
                # tutorial's `OneStep(model, chars_from_ids, ids_from_chars)`, no `call`).
                return Functional.__new__(_functional_hybrid(cls))
        return super().__new__(cls)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickles as `nn.Module` does (the instance's `__dict__`); a functional hybrid (see
        `__new__`) is re-created from the subclass it was made for."""
        reduced = super().__reduce_ex__(protocol)
        base = _HYBRID_BASES.get(type(self))
        if base is None or not isinstance(reduced, tuple):
            return reduced
        return (_new_functional_hybrid, (base,)) + reduced[2:]

    def __init__(self, *args: Any, **kwargs: Any):
        # Keras 2.15's test for functional arguments; any other positional argument is ignored
        # (the text-generation tutorial's `super().__init__(self)` in a subclassed model)
        if len(args) == 2 or "inputs" in kwargs or "outputs" in kwargs:
            from torchestimator.keras.engine.functional import (  # lazy: subclass (keras.engine.functional subclasses Model, which builds it)
                Functional,
            )

            if not isinstance(self, Functional):
                raise TypeError(
                    f"{type(self).__name__} is a subclassed model; it cannot also take "
                    "`inputs`/`outputs`. Define call() instead, or use tf.keras.Model(inputs, outputs)."
                )
        super().__init__(**kwargs)
        Trainer._init_trainer(self)

    # The Keras fronts leave each module in the torch mode they found it in (see
    # `base_layer`'s docstring on the training flag); the work is `Trainer`'s.
    fit = _keeps_module_modes(Trainer.fit)
    evaluate = _keeps_module_modes(Trainer.evaluate)
    predict = _keeps_module_modes(Trainer.predict)
    train_on_batch = _keeps_module_modes(Trainer.train_on_batch)
    test_on_batch = _keeps_module_modes(Trainer.test_on_batch)
    predict_on_batch = _keeps_module_modes(Trainer.predict_on_batch)

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

        self.built = True  # the trace below must not come back here
        spec = _shape_to_spec(input_shape, self._compute_dtype)
        self._build_shapes = input_shape
        try:
            with self._build_precision():  # a mixed model's trace runs as its calls will
                shape_inference._run(self, (spec,), {}, 0, shape_inference.trace_device(self))
        except Exception:
            self.built = False
            raise

    def _maybe_build(self, inputs: Any) -> None:
        if not self.built:  # the first call's inputs are the model's `save_spec`
            self._record_save_spec(inputs)
        super()._maybe_build(inputs)

    def _build_from_data(self, data: Any, device: Any) -> None:
        # A subclass that overrides train_step but defines no call() (the GAN of TF's
        # "Customize what happens in fit()" guide) is never called by fit in Keras 2.15: its
        # sub-models build in the first train_step.
        if type(self).call is Model.call:
            return
        super()._build_from_data(data, device)

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

        print_summary(self, line_length, positions, print_fn, expand_nested, show_trainable)

    def get_config(self) -> dict:
        """Returns the model's config; a subclassed model must override it to be serializable."""
        return Layer.get_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Model:
        """Creates a model from its config: a functional graph config rebuilds the graph."""
        if "input_layers" in config and "layers" in config:
            from torchestimator.keras.engine.functional import (  # lazy: subclass (keras.engine.functional subclasses Model, which builds it)
                Functional,
            )

            target = cls if issubclass(cls, Functional) else Functional
            return target.from_config(config, custom_objects=custom_objects)
        return cls(**config)

    def to_json(self, **kwargs: Any) -> str:
        """Returns the model's architecture as a JSON string (`class_name` and `config`)."""

        return json.dumps(serialize_keras_object(self), **kwargs)
