"""`tf.keras.models.experimental.SharpnessAwareMinimization`: the SAM training step."""

from __future__ import annotations

import copy
from typing import Any

import torch

from torchestimator.keras._registry import (
    deserialize_keras_object,
    register_keras_serializable,
    serialize_keras_object,
)
from torchestimator.keras.engine.model import Model
from torchestimator.keras.utils._data_tuples import unpack_x_y_sample_weight


def _split(value: Any, parts: int, what: str) -> list:
    if not isinstance(value, torch.Tensor):
        value = torch.as_tensor(value)
    if value.shape[0] % parts:
        raise ValueError(
            f"SharpnessAwareMinimization: the batch of {what} ({value.shape[0]} rows) cannot be "
            f"split into num_batch_splits={parts} equal parts; use a batch size divisible by it."
        )
    return list(torch.split(value, value.shape[0] // parts))


@register_keras_serializable()
class SharpnessAwareMinimization(Model):
    """Sharpness aware minimization (SAM) training flow.

    Each training step first moves the weights up the gradient by
    `rho * g / ||g||` (the sharpest nearby point), takes the gradient there,
    moves the weights back and lets the optimizer apply that gradient. With
    `num_batch_splits`, each batch is split into that many mini batches, each
    gets its own perturbation, and their gradients are summed.

    Args:
        model: the `tf.keras.Model` that does the forward and backward pass.
        rho: the size of the perturbation. Defaults to 0.05.
        num_batch_splits: the number of mini batches each batch is split into;
            None: batches are not split.
        name: the name of the SAM model.

    Reference: [Pierre Foret et al., 2020](https://arxiv.org/abs/2010.01412)
    """

    def __init__(self, model: Any, rho: float = 0.05, num_batch_splits: int | None = None,
                 name: str | None = None) -> None:
        if not isinstance(model, torch.nn.Module) or not hasattr(model, "trainable_variables"):
            raise TypeError(
                "SharpnessAwareMinimization: `model` must be a tf.keras.Model; received "
                f"{type(model).__name__}."
            )
        if num_batch_splits is not None and (isinstance(num_batch_splits, bool)
                                             or not isinstance(num_batch_splits, int)
                                             or num_batch_splits < 1):
            raise ValueError(
                "SharpnessAwareMinimization: `num_batch_splits` must be a positive int or None; "
                f"received {num_batch_splits!r}."
            )
        super().__init__(name=name)
        self.model = model
        self.rho = rho
        self.num_batch_splits = num_batch_splits

    def call(self, inputs: Any) -> Any:
        """Delegates the forward pass to the wrapped model; returns its outputs."""
        return self.model(inputs)

    def train_step(self, data: Any) -> dict:
        """One SAM step on a batch `(x, y[, sample_weight])`; returns the metrics' values."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        if self.num_batch_splits is not None:
            x_split = _split(x, self.num_batch_splits, "x")
            y_split = _split(y, self.num_batch_splits, "y")
        else:
            x_split, y_split = [x], [y]
        variables = list(self.model.trainable_variables)
        if self._optimizer_built_for < 0:
            self.optimizer.build(variables)
            self._optimizer_built_for = len(variables)
        summed: list[torch.Tensor | None] = [None] * len(variables)
        predictions = []
        for x_batch, y_batch in zip(x_split, y_split):
            pred = self.model(x_batch)
            loss = self.compiled_loss(y_batch, pred)
            predictions.append(pred.detach())
            gradients = torch.autograd.grad(loss, variables, allow_unused=True)
            norm = torch.linalg.vector_norm(torch.stack(
                [torch.linalg.vector_norm(g) for g in gradients if g is not None]))
            scale = self.rho / (norm + 1e-12)
            epsilons = [None if g is None else g * scale for g in gradients]
            with torch.no_grad():
                for variable, epsilon in zip(variables, epsilons):
                    if epsilon is not None:
                        variable.add_(epsilon)
            pred = self(x_batch)
            loss = self.compiled_loss(y_batch, pred)
            gradients = torch.autograd.grad(loss, variables, allow_unused=True)
            for i, gradient in enumerate(gradients):
                if gradient is not None:
                    summed[i] = gradient if summed[i] is None else summed[i] + gradient
            with torch.no_grad():  # back to the weights before the perturbation
                for variable, epsilon in zip(variables, epsilons):
                    if epsilon is not None:
                        variable.sub_(epsilon)
        self.optimizer.apply_gradients(zip(summed, variables))
        pred = torch.cat(predictions, dim=0)
        self.compiled_metrics.update_state(y, pred, sample_weight)
        return self.get_metrics_result()

    def get_config(self) -> dict:
        """Returns the config: the wrapped model's, `rho`, `num_batch_splits` and `name`."""
        return {"name": self.name, "model": serialize_keras_object(self.model), "rho": self.rho,
                "num_batch_splits": self.num_batch_splits}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None
                    ) -> SharpnessAwareMinimization:
        """Creates the SAM model from `get_config()`'s output (the wrapped model rebuilt
        through the safe registry)."""
        config = copy.deepcopy(config)
        model = deserialize_keras_object(config.pop("model"), custom_objects=custom_objects)
        kwargs = {k: config[k] for k in ("rho", "num_batch_splits", "name") if k in config}
        return cls(model, **kwargs)
