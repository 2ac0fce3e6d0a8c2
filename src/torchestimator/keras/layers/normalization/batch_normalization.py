"""`BatchNormalization`: normalizes with the batch's statistics in training and with
moving averages of them in inference, on torch's fused `F.batch_norm` kernel."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch.distributed.nn.functional import all_reduce

from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.normalization._axes import check_axis_arg, resolve_axes

_UNSUPPORTED = ("renorm", "virtual_batch_size", "adjustment")


class BatchNormalization(Layer):
    """Layer that normalizes its inputs.

    Batch normalization applies a transformation that maintains the mean output
    close to 0 and the output standard deviation close to 1, and works
    differently during training and during inference:

    - **training** (`training=True`, as in `fit`): the output is
      `gamma * (batch - mean(batch)) / sqrt(var(batch) + epsilon) + beta`, and
      the moving statistics are updated:
      `moving_mean = moving_mean * momentum + mean(batch) * (1 - momentum)`,
      `moving_var = moving_var * momentum + var(batch) * (1 - momentum)`.
    - **inference** (`training=False` or None, as in `predict`): the output is
      `gamma * (batch - moving_mean) / sqrt(moving_var + epsilon) + beta`.

    Setting `layer.trainable = False` freezes `gamma` and `beta` and also makes
    the layer run in inference mode (Keras 2's behaviour, for fine-tuning).
    `moving_mean` and `moving_variance` are non-trainable weights: they live in
    `state_dict()` and `non_trainable_weights`. As TensorFlow's fused kernel
    does, the moving variance of 4D/5D inputs normalized on their channel axis
    is updated with the unbiased batch variance; other inputs use the biased one.

    Args:
        axis: Integer or list of integers, the axis (axes) that should be
            normalized (typically the features axis; -1 by default, use
            `axis=1` after a channels_first convolution).
        momentum: Momentum for the moving average (0.99).
        epsilon: Small float added to variance to avoid dividing by zero (1e-3).
        center: If True, add offset `beta` to the normalized tensor.
        scale: If True, multiply by `gamma`.
        beta_initializer, gamma_initializer, moving_mean_initializer,
        moving_variance_initializer: Initializers ('zeros', 'ones', 'zeros', 'ones').
        beta_regularizer, gamma_regularizer: Optional regularizers.
        beta_constraint, gamma_constraint: Optional constraints.
        synchronized: If True and `torch.distributed` runs several processes,
            the batch statistics are computed over the global batch
            (all-reduced across processes) in training.

    Call arguments: `inputs`, `training`, `mask` (a boolean mask broadcastable
    to the input without its last axis: masked positions do not count in the
    batch statistics).

    Returns (when called): a tensor of the input's shape.
    """

    def __init__(
        self,
        axis: Any = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        synchronized: bool = False,
        **kwargs: Any,
    ):
        for key in _UNSUPPORTED:
            if kwargs.pop(key, None):
                raise ValueError(
                    f"BatchNormalization({key}=...) (batch renormalization / ghost batches) is "
                    "not supported by torchestimator; remove the argument."
                )
        kwargs.pop("renorm_clipping", None)
        kwargs.pop("renorm_momentum", None)
        self.fused = kwargs.pop("fused", None)
        super().__init__(**kwargs)
        self.axis = check_axis_arg(axis, "BatchNormalization")
        if not isinstance(momentum, (int, float)) or not 0.0 <= momentum <= 1.0:
            raise ValueError(
                f"BatchNormalization: `momentum` must be a float in [0, 1]; received {momentum!r}"
            )
        if not isinstance(epsilon, (int, float)) or epsilon < 0:
            raise ValueError(
                f"BatchNormalization: `epsilon` must be a non-negative float; received {epsilon!r}"
            )
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.synchronized = bool(synchronized)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        """Creates `gamma`, `beta` (trainable) and `moving_mean`, `moving_variance`
        (non-trainable), of shape `(input_shape[axis],)`."""
        input_shape = tuple(input_shape)
        ndims = len(input_shape)
        if ndims == 0:
            raise ValueError(f'Layer "{self.name}": input has undefined rank.')
        axes = resolve_axes(self.axis, input_shape, self.name)
        self.axis = axes
        axis_to_dim = {a: input_shape[a] for a in axes}
        if len(axes) == 1:
            param_shape: tuple = (input_shape[axes[0]],)
        else:
            param_shape = tuple(axis_to_dim.get(i, 1) for i in range(ndims))
        self.input_spec = InputSpec(ndim=ndims, axes=axis_to_dim)
        channel_axis = axes[0] if len(axes) == 1 else None
        # TensorFlow's fused kernel (4D/5D inputs, channel axis 1 or last) updates the
        # moving variance with the unbiased batch variance, the generic path with the biased.
        fused = ndims in (4, 5) and channel_axis in (1, ndims - 1)
        self._unbiased_update = fused if self.fused is None else bool(self.fused) and fused
        self._channel_axis = channel_axis
        self._ndims = ndims
        self._size = math.prod(axis_to_dim.values())
        if self.scale:
            self.gamma = self.add_weight(
                "gamma", shape=param_shape, initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                trainable=True, dtype=self._param_dtype(),
            )
        else:
            self.gamma = None
        if self.center:
            self.beta = self.add_weight(
                "beta", shape=param_shape, initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                trainable=True, dtype=self._param_dtype(),
            )
        else:
            self.beta = None
        self.moving_mean = self.add_weight(
            "moving_mean", shape=param_shape, initializer=self.moving_mean_initializer,
            trainable=False, dtype=self._param_dtype(),
        )
        self.moving_variance = self.add_weight(
            "moving_variance", shape=param_shape, initializer=self.moving_variance_initializer,
            trainable=False, dtype=self._param_dtype(),
        )
        self.built = True

    def _param_dtype(self) -> torch.dtype:
        dtype = self._variable_dtype
        return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype

    # ------------------------------------------------------------------ call
    def call(
        self, inputs: torch.Tensor, training: bool | None = None, mask: Any = None
    ) -> torch.Tensor:
        """Returns the normalized `inputs`: batch statistics in training (updating the moving
        ones), moving statistics otherwise.
        """
        training = bool(training) and self._trainable
        x = inputs
        if x.dtype != self.moving_mean.dtype:
            return self.call(x.to(self.moving_mean.dtype), training, mask).to(inputs.dtype)
        if training and (mask is not None or self._distributed()):
            return self._generic(x, training, mask)
        axis = self._channel_axis
        if axis is None:  # several axes: move them last, flatten them into one channel axis
            others = [d for d in range(self._ndims) if d not in self.axis]
            moved = x.permute(others + self.axis)
            flat = moved.reshape(-1, self._size)
            y = self._fused(flat, training, x.numel() // self._size)
            return y.reshape(moved.shape).permute(_inverse(others + self.axis))
        if axis == 1:
            return self._fused(x, training, x.numel() // self._size)
        if axis == self._ndims - 1:
            y = self._fused(x.reshape(-1, self._size), training, x.numel() // self._size)
            return y.view(x.shape)
        y = self._fused(x.movedim(axis, 1), training, x.numel() // self._size)
        return y.movedim(1, axis)

    def _fused(self, x: torch.Tensor, training: bool, count: int) -> torch.Tensor:
        """F.batch_norm on (N, C, ...) input (flattened parameters)."""
        mean, var = self.moving_mean, self.moving_variance
        gamma, beta = self.gamma, self.beta
        if mean.dim() != 1:
            mean, var = mean.view(-1), var.view(-1)
            gamma = None if gamma is None else gamma.view(-1)
            beta = None if beta is None else beta.view(-1)
        if not training:
            return F.batch_norm(x, mean, var, gamma, beta, False, 0.0, self.epsilon)
        if count <= 1:
            return self._generic_flat(x, gamma, beta, mean, var)
        if self._unbiased_update:
            return F.batch_norm(x, mean, var, gamma, beta, True, 1.0 - self.momentum, self.epsilon)
        # torch updates the moving variance with the unbiased batch variance; Keras' generic
        # path uses the biased one: let torch update a copy, then correct it into `var`.
        updated = var.detach().clone()
        y = F.batch_norm(x, mean, updated, gamma, beta, True, 1.0 - self.momentum, self.epsilon)
        with torch.no_grad():
            var.copy_(updated - (updated - var * self.momentum) / count)
        return y

    def _generic_flat(self, x: torch.Tensor, gamma: Any, beta: Any, mean: Any, var: Any) -> Any:
        dims = [d for d in range(x.dim()) if d != 1]
        batch_var, batch_mean = torch.var_mean(x, dim=dims, correction=0)
        self._update_moving(batch_mean, batch_var, mean, var)
        shape = (1, -1) + (1,) * (x.dim() - 2)
        y = (x - batch_mean.view(shape)) * torch.rsqrt(batch_var.view(shape) + self.epsilon)
        if gamma is not None:
            y = y * gamma.view(shape)
        return y if beta is None else y + beta.view(shape)

    def _update_moving(self, batch_mean: Any, batch_var: Any, mean: Any, var: Any) -> None:
        with torch.no_grad():
            mean.mul_(self.momentum).add_(batch_mean.detach().view(mean.shape), alpha=1 - self.momentum)
            var.mul_(self.momentum).add_(batch_var.detach().view(var.shape), alpha=1 - self.momentum)

    def _distributed(self) -> bool:
        if not self.synchronized:
            return False
        dist = torch.distributed
        return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1

    def _generic(self, x: torch.Tensor, training: bool, mask: Any) -> torch.Tensor:
        """Masked and/or cross-process moments (TF's weighted moments), then normalization."""
        reduce = [d for d in range(x.dim()) if d not in self.axis]
        bshape = [x.shape[d] if d in self.axis else 1 for d in range(x.dim())]
        if mask is not None:
            weights = mask.to(x.dtype)
            while weights.dim() < x.dim():
                weights = weights.unsqueeze(-1)
            weights = weights.expand_as(x)
        else:
            weights = torch.ones((), dtype=x.dtype, device=x.device).expand_as(x)
        total = torch.sum(weights * x, dim=reduce, keepdim=True)
        count = torch.sum(weights, dim=reduce, keepdim=True)
        if self._distributed():
            total, count = all_reduce(total), all_reduce(count)
        batch_mean = total / count.clamp_min(torch.finfo(x.dtype).tiny)
        sq = torch.sum(weights * (x - batch_mean) ** 2, dim=reduce, keepdim=True)
        if self._distributed():
            sq = all_reduce(sq)
        batch_var = sq / count.clamp_min(torch.finfo(x.dtype).tiny)
        self._update_moving(batch_mean, batch_var, self.moving_mean, self.moving_variance)
        y = (x - batch_mean) * torch.rsqrt(batch_var + self.epsilon)
        if self.gamma is not None:
            y = y * self.gamma.reshape(bshape)
        return y if self.beta is None else y + self.beta.reshape(bshape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `input_shape` unchanged."""
        return input_shape

    def get_config(self) -> dict:
        """Returns the layer's arguments with the base layer's config."""
        config = super().get_config()
        config.update(
            {
                "axis": self.axis,
                "momentum": self.momentum,
                "epsilon": self.epsilon,
                "center": self.center,
                "scale": self.scale,
                "beta_initializer": initializers.serialize(self.beta_initializer),
                "gamma_initializer": initializers.serialize(self.gamma_initializer),
                "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
                "moving_variance_initializer": initializers.serialize(
                    self.moving_variance_initializer
                ),
                "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                "beta_constraint": constraints.serialize(self.beta_constraint),
                "gamma_constraint": constraints.serialize(self.gamma_constraint),
            }
        )
        if self.synchronized:
            config["synchronized"] = True
        return config


def _inverse(perm: list[int]) -> list[int]:
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return out
