"""`tf.keras.experimental.WideDeepModel`: Keras 2.15's premade Wide & Deep model
(`keras/premade_models/wide_deep.py`).

The output is `activation(linear_model(linear_inputs) + dnn_model(dnn_inputs))` (a plain sum,
output by output for nested outputs). A call takes one input, fed to both parts, or a pair
`[linear_inputs, dnn_inputs]`. `compile(optimizer=[linear_optimizer, dnn_optimizer])` trains
each part with its own optimizer; one optimizer trains all the weights.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._engine.backward import backward
from torchestimator._engine.device_moves import move_optimizer
from torchestimator._ops import nest
from torchestimator.keras import _registry, activations, optimizers
from torchestimator.keras.engine._device_moves import keras_optimizer_state
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.model import Model
from torchestimator.keras.optimizers.optimizer import Optimizer

_PART_STATES = ("linear_optimizer", "dnn_optimizer")
_SCHEDULERS = (torch.optim.lr_scheduler.LRScheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)


def _is_per_part(optimizer: Any) -> bool:
    """Whether `compile`'s `optimizer` is a list of optimizers, one per part -- not one
    optimizer, nor a torch `(optimizer, lr_scheduler)` pair."""
    if not isinstance(optimizer, (list, tuple)):
        return False
    return not (len(optimizer) == 2 and isinstance(optimizer[0], torch.optim.Optimizer)
                and isinstance(optimizer[1], _SCHEDULERS))


def _optimizer_config(optimizer: Any) -> Any:
    """What the compile config keeps of one part's optimizer: its name, the config of a Keras
    optimizer object (its state is not saved), else None."""
    if isinstance(optimizer, (str, Mapping)):
        return copy.deepcopy(optimizer)
    if isinstance(optimizer, Optimizer):
        return _registry.serialize_keras_object(optimizer)
    return None


class WideDeepModel(Model):
    """Wide & Deep Model for regression and classification problems.

    This model jointly trains a linear and a dnn model.

    ```python
    linear_model = tf.keras.experimental.LinearModel()
    dnn_model = tf.keras.Sequential([tf.keras.layers.Dense(units=64),
                                     tf.keras.layers.Dense(units=1)])
    combined_model = tf.keras.experimental.WideDeepModel(linear_model, dnn_model)
    combined_model.compile(optimizer=['sgd', 'adam'], loss='mse', metrics=['mse'])
    # linear_inputs and dnn_inputs as separate arrays, or one array for both
    combined_model.fit([linear_inputs, dnn_inputs], y, epochs=epochs)
    ```

    Both parts may be compiled and trained on their own before training
    them jointly.

    Args:
        linear_model: a premade `LinearModel` (any Keras layer or model
            works); its output must match the dnn model's.
        dnn_model: a `tf.keras.Model`; its output must match the linear
            model's.
        activation: Activation function applied to the sum (None: linear).
        **kwargs: The keyword arguments passed on to the base `Model`
            (`name`, ...).
    """

    def __init__(self, linear_model: Any, dnn_model: Any, activation: Any = None,
                 **kwargs: Any) -> None:
        for what, part in (("linear_model", linear_model), ("dnn_model", dnn_model)):
            if not isinstance(part, Layer):
                raise TypeError(
                    f"WideDeepModel: `{what}` must be a Keras model or layer (e.g. "
                    f"tf.keras.experimental.LinearModel() / a tf.keras.Sequential); received "
                    f"{type(part).__name__}: {part!r}."
                )
        if linear_model is dnn_model:
            raise ValueError(
                "WideDeepModel: `linear_model` and `dnn_model` must be two different models.")
        super().__init__(**kwargs)
        self.linear_model = linear_model
        self.dnn_model = dnn_model
        self.activation = activations.get(activation)

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        """Returns `activation(linear_model(linear_inputs) + dnn_model(dnn_inputs))`; `inputs`
        is one input for both, or a pair `[linear_inputs, dnn_inputs]`."""
        if not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
            linear_inputs = dnn_inputs = inputs
        else:
            linear_inputs, dnn_inputs = inputs
        linear_output = self.linear_model(linear_inputs)
        if training is None:  # the call context's flag reaches the nested model
            dnn_output = self.dnn_model(dnn_inputs)
        else:
            dnn_output = self.dnn_model(dnn_inputs, training=training)
        if isinstance(linear_output, torch.Tensor) and isinstance(dnn_output, torch.Tensor):
            output = linear_output + dnn_output
            return output if self.activation is None else self.activation(output)
        linear_flat, dnn_flat = nest.flatten(linear_output), nest.flatten(dnn_output)
        if len(linear_flat) != len(dnn_flat):
            raise ValueError(
                "WideDeepModel: the linear model's output and the dnn model's must have the "
                f"same structure; got {len(linear_flat)} and {len(dnn_flat)} tensors."
            )
        summed = [a + b for a, b in zip(linear_flat, dnn_flat)]
        if self.activation is not None:
            summed = [self.activation(t) for t in summed]
        return nest.pack_sequence_as(linear_output, summed)

    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, metrics: Any = None,
                **kwargs: Any) -> None:
        """As `Model.compile`; `optimizer` may also be a list `[linear_optimizer,
        dnn_optimizer]`: each trains the weights of its part (Keras 2.15's WideDeepModel)."""
        if not _is_per_part(optimizer):
            super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)
            return
        if len(optimizer) != 2:
            raise ValueError(
                "WideDeepModel.compile: a list of optimizers must hold two, "
                "[linear_optimizer, dnn_optimizer]; received "
                f"{len(optimizer)}: {list(optimizer)!r}."
            )
        parts = [optimizers.get(opt) for opt in optimizer]
        if parts[0] is parts[1]:
            raise ValueError(
                "WideDeepModel.compile: the linear and the dnn optimizer must be two different "
                "optimizer objects (each keeps the state of its part's weights); pass a single "
                "optimizer to train both parts with one.")
        super().compile(optimizer=parts[0], loss=loss, metrics=metrics, **kwargs)
        self.optimizer = parts
        config, problems = self._compile_config
        names = [_optimizer_config(opt) for opt in optimizer]
        config["optimizer"] = None if any(n is None for n in names) else names
        self._compile_config = (config, problems)

    def _apply_optimizer(self, loss: torch.Tensor) -> None:
        """The training step's update. With two optimizers the gradient of the loss updates the
        linear model's weights with the first and the dnn model's with the second; with one,
        as `Model`'s."""
        optimizer = self.optimizer
        if not isinstance(optimizer, list):
            super()._apply_optimizer(loss)
            return
        parts = (self.linear_model.trainable_weights, self.dnn_model.trainable_weights)
        if self._optimizer_built_for < 0:
            for opt, weights in zip(optimizer, parts):
                opt.build(weights)
            self._optimizer_built_for = sum(len(w) for w in parts)
        backward(loss)
        for opt, weights in zip(optimizer, parts):
            if weights:
                opt.step()
        for opt in optimizer:
            opt.zero_grad()

    def _optimizer_state(self) -> dict | None:
        """With two optimizers, both states: `{"linear_optimizer": ..., "dnn_optimizer": ...}`
        (BackupAndRestore resumes both, as TF's checkpoint of the model tracks both)."""
        if not isinstance(self.optimizer, list):
            return super()._optimizer_state()
        return {key: opt.state_dict() for key, opt in zip(_PART_STATES, self.optimizer)}

    def _load_optimizer_state(self, state: dict) -> None:
        """Restores what `_optimizer_state` returned, each part's state into its optimizer."""
        if not isinstance(self.optimizer, list):
            super()._load_optimizer_state(state)
            return
        if sorted(state) != sorted(_PART_STATES):
            raise ValueError(
                "WideDeepModel: the optimizer state holds "
                f"{sorted(state)}; a model compiled with [linear_optimizer, dnn_optimizer] "
                f"needs {list(_PART_STATES)} (was it saved from a model compiled with one "
                "optimizer?)")
        for key, opt in zip(_PART_STATES, self.optimizer):
            opt.load_state_dict(state[key])

    def _place(self) -> torch.device:
        """The device the steps run on, the weights (and each part's optimizer state) moved
        there; as `Model._place`, for the two optimizers of a per-part compile."""
        optimizer = self.optimizer
        if not isinstance(optimizer, list):
            return super()._place()
        first = next(iter(self.parameters()), None)
        moving = first is not None and first.device != self._training_device()
        self.optimizer = None
        try:
            device = super()._place()
        finally:
            self.optimizer = optimizer
        if moving:
            parts = (self.linear_model, self.dnn_model)
            for opt, part in zip(optimizer, parts):
                move_optimizer(opt, device, keras_optimizer_state, weights_moved=True)
                if getattr(opt, "_built", False):
                    opt.build(part.trainable_weights)
        return device

    def get_config(self) -> dict[str, Any]:
        """Returns the config: both parts serialized, the activation and the base layer
        config (`name`, `trainable`, `dtype`)."""
        config = Layer.get_config(self)
        config.update(
            linear_model=_registry.serialize_keras_object(self.linear_model),
            dnn_model=_registry.serialize_keras_object(self.dnn_model),
            activation=activations.serialize(self.activation),
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict | None = None
                    ) -> WideDeepModel:
        """Creates the model from `get_config()`'s output (both parts rebuilt through the safe
        registry)."""
        config = dict(config)
        linear_model = _registry.deserialize_keras_object(config.pop("linear_model"), custom_objects)
        dnn_model = _registry.deserialize_keras_object(config.pop("dnn_model"), custom_objects)
        activation = activations.deserialize(config.pop("activation", None),
                                             custom_objects=custom_objects)
        return cls(linear_model=linear_model, dnn_model=dnn_model, activation=activation, **config)
