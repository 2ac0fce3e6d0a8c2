"""`RandomHeight` and `RandomWidth`: resize a batch to a random height or width during
training (`tf.keras.layers.RandomHeight`, `tf.keras.layers.RandomWidth`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.image_ops import resize
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.image_preprocessing._base import (
    RandomDraws,
    check_image_rank,
    convert_inputs,
    factor_bounds,
    trains,
)
from torchestimator.keras.layers.image_preprocessing.resizing import get_interpolation

_FACTOR_DOC = """factor: A positive float (fraction of the original {dim}), or a tuple of
            size 2 representing lower and upper bound for resizing {direction}. A single
            float `f` means `[-f, f]`: `factor=0.2` changes the {dim} by a random amount in
            `[-20%, +20%]`, `factor=(-0.2, 0.3)` in `[-20%, +30%]`.
        interpolation: String, the interpolation method: `"bilinear"` (default),
            `"nearest"`, `"bicubic"`, `"area"`, `"lanczos3"`, `"lanczos5"`, `"gaussian"`,
            `"mitchellcubic"`.
        seed: Integer. Used to create a random seed."""


class _RandomSizeMixin:
    """The shared part of `RandomHeight` and `RandomWidth`; `_AXIS` is -3 or -2."""

    _AXIS = -3
    factor: Any
    interpolation: str
    seed: int | None

    def _setup(self, factor: Any, interpolation: str, seed: int | None, lesser: str) -> None:
        self.factor = factor
        self.lower, self.upper = factor_bounds(factor, "factor")
        if self.upper < self.lower:
            raise ValueError(
                f"`factor` argument cannot have an upper bound {lesser} the lower bound. "
                f"Received: factor={factor}"
            )
        if self.lower < -1.0 or self.upper < -1.0:
            raise ValueError(
                f"`factor` argument must have values larger than -1. Received: factor={factor}"
            )
        self.interpolation = interpolation
        self._interpolation_method = get_interpolation(interpolation)
        self.seed = seed
        self._draws = RandomDraws(seed)

    def call(self, inputs: Any, training: bool | None = True) -> torch.Tensor:
        """In training, the images resized along one axis by a random factor (one for the
        whole batch), in the compute dtype; otherwise the images unchanged."""
        if not trains(self, training):
            return inputs
        x = convert_inputs(inputs)
        check_image_rank(self, x)
        factor = self._draws.uniform_scalar(1.0 + self.lower, 1.0 + self.upper)
        size = [int(x.shape[-3]), int(x.shape[-2])]
        axis = self._AXIS + 3
        size[axis] = int(np.float32(factor) * np.float32(size[axis]))  # TF: float32, truncated
        out = resize(x, size, method=self._interpolation_method)
        return out.to(self._compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape with the resized axis unknown (None)."""
        shape = list(input_shape)
        shape[self._AXIS] = None
        return tuple(shape)

    def get_config(self) -> dict:
        """Returns `factor`, `interpolation` and `seed`."""
        config = super().get_config()  # type: ignore[misc]
        config.update({
            "factor": self.factor, "interpolation": self.interpolation, "seed": self.seed,
        })
        return config


class RandomHeight(_RandomSizeMixin, Layer):
    __doc__ = f"""A preprocessing layer which randomly varies image height during training.

    This layer adjusts the height of a batch of images by a random factor (the same for
    every image of the batch). The input should be a 3D (unbatched) or 4D (batched) tensor
    in the `"channels_last"` format, of any value range and of integer or floating point
    dtype; the layer outputs floats. At inference the input passes unchanged; as in Keras
    2.15, a call that nothing marks as inference resizes.

    Args:
        {_FACTOR_DOC.format(dim="height", direction="vertically")}

    Input shape: `(..., height, width, channels)`.
    Output shape: `(..., random_height, width, channels)`.
    """

    _AXIS = -3

    def __init__(self, factor: Any, interpolation: str = "bilinear", seed: int | None = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self._setup(factor, interpolation, seed, "lesser than")


class RandomWidth(_RandomSizeMixin, Layer):
    __doc__ = f"""A preprocessing layer which randomly varies image width during training.

    This layer adjusts the width of a batch of images by a random factor (the same for
    every image of the batch). The input should be a 3D (unbatched) or 4D (batched) tensor
    in the `"channels_last"` format, of any value range and of integer or floating point
    dtype; the layer outputs floats. At inference the input passes unchanged; as in Keras
    2.15, a call that nothing marks as inference resizes.

    Args:
        {_FACTOR_DOC.format(dim="width", direction="horizontally")}

    Input shape: `(..., height, width, channels)`.
    Output shape: `(..., height, random_width, channels)`.
    """

    _AXIS = -2

    def __init__(self, factor: Any, interpolation: str = "bilinear", seed: int | None = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self._setup(factor, interpolation, seed, "less than")
