"""`GroupNormalization`: normalizes groups of channels of each example (F.group_norm)."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec


class GroupNormalization(Layer):
    """Group normalization layer (Wu & He, 2018).

    Divides the channels into `groups` groups of consecutive channels and
    normalizes the features within each group of each example by its own mean
    and variance, then applies the per-channel `gamma` and `beta`. Independent
    of the batch size; the same in training and inference. `groups=1` is
    Layer Normalization over all non-batch axes; `groups=channels` is Instance
    Normalization.

    Args:
        groups: Integer, the number of groups (32); -1 means one group per channel.
            Must divide the number of channels.
        axis: Integer, the channel axis (-1).
        epsilon: Small float added to variance to avoid dividing by zero (1e-3).
        center: If True, add offset of `beta` to normalized tensor.
        scale: If True, multiply by `gamma`.
        beta_initializer / gamma_initializer: Initializers ('zeros' / 'ones').
        beta_regularizer / gamma_regularizer: Optional regularizers.
        beta_constraint / gamma_constraint: Optional constraints.

    Returns (when called): a tensor of the input's shape.
    """

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if isinstance(groups, bool) or not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError(
                f"GroupNormalization: `groups` must be a positive integer or -1; received "
                f"groups={groups!r}"
            )
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"GroupNormalization: `axis` must be an integer; received axis={axis!r}")
        self.groups = groups
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        """Creates `gamma` and `beta` of shape `(channels,)`; checks `groups` divides them."""
        input_shape = tuple(input_shape)
        ndims = len(input_shape)
        if not -ndims <= self.axis < ndims or ndims < 2:
            raise ValueError(
                f'Layer "{self.name}": invalid axis {self.axis} for an input of shape {input_shape}.'
            )
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                f"received an input with shape {input_shape}."
            )
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number of channels "
                f"({dim})."
            )
        if dim % self.groups != 0:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                f"({dim})."
            )
        self._channel_axis = self.axis % ndims
        self.input_spec = InputSpec(ndim=ndims, axes={self.axis: dim})
        dtype = torch.float32 if self._variable_dtype in (torch.float16, torch.bfloat16) else None
        self.gamma = (
            self.add_weight(
                "gamma", shape=(dim,), initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                trainable=True, dtype=dtype,
            )
            if self.scale else None
        )
        self.beta = (
            self.add_weight(
                "beta", shape=(dim,), initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                trainable=True, dtype=dtype,
            )
            if self.center else None
        )
        self.built = True

    def call(self, inputs: torch.Tensor, mask: Any = None) -> torch.Tensor:
        """Returns `inputs` normalized per example and group of channels. With `mask`
        (broadcast to the inputs' shape, as TF's), each group's mean and variance are those of
        its unmasked entries (weighted by the mask, 0 where a group has none); every entry is
        normalized."""
        x = inputs
        param = self.gamma if self.gamma is not None else self.beta
        if param is not None and x.dtype != param.dtype:
            x = x.to(param.dtype)
        axis = self._channel_axis
        if mask is not None:
            weights = torch.broadcast_to(torch.as_tensor(mask, device=x.device), inputs.shape)
            weights = weights.to(x.dtype)
            if axis != 1:
                weights = weights.movedim(axis, 1)
        if axis != 1:
            x = x.movedim(axis, 1)
        if mask is None:
            y = F.group_norm(x, self.groups, self.gamma, self.beta, self.epsilon)
        else:
            y = self._masked_group_norm(x, weights)
        if axis != 1:
            y = y.movedim(1, axis)
        return y if y.dtype == inputs.dtype else y.to(inputs.dtype)

    def _masked_group_norm(self, x: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        """Group norm of `x` (channels on axis 1) with the moments weighted by `weights` (TF's
        `tf.nn.weighted_moments`: a zero total weight gives a zero mean and variance)."""
        batch, channels = x.shape[0], x.shape[1]
        grouped = (batch, self.groups, channels // self.groups) + tuple(x.shape[2:])
        xg, wg = x.reshape(grouped), weights.reshape(grouped)
        dims = tuple(range(2, xg.ndim))
        total = wg.sum(dims, keepdim=True)
        safe = torch.where(total == 0, torch.ones_like(total), total)
        mean = torch.where(total == 0, torch.zeros_like(total), (wg * xg).sum(dims, keepdim=True) / safe)
        variance = torch.where(
            total == 0, torch.zeros_like(total),
            (wg * (xg - mean) ** 2).sum(dims, keepdim=True) / safe,
        )
        y = ((xg - mean) * torch.rsqrt(variance + self.epsilon)).reshape(x.shape)
        shape = (1, channels) + (1,) * (x.ndim - 2)
        if self.gamma is not None:
            y = y * self.gamma.reshape(shape)
        if self.beta is not None:
            y = y + self.beta.reshape(shape)
        return y

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `input_shape` unchanged."""
        return input_shape

    def get_config(self) -> dict:
        """Returns the layer's arguments with the base layer's config."""
        config = super().get_config()
        config.update(
            {
                "groups": self.groups,
                "axis": self.axis,
                "epsilon": self.epsilon,
                "center": self.center,
                "scale": self.scale,
                "beta_initializer": initializers.serialize(self.beta_initializer),
                "gamma_initializer": initializers.serialize(self.gamma_initializer),
                "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                "beta_constraint": constraints.serialize(self.beta_constraint),
                "gamma_constraint": constraints.serialize(self.gamma_constraint),
            }
        )
        return config
