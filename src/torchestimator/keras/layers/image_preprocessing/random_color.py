"""`RandomContrast` and `RandomBrightness`: random pixel-value adjustments during training
(`tf.keras.layers.RandomContrast`, `tf.keras.layers.RandomBrightness`)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.image_ops import adjust_contrast
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.image_preprocessing._base import (
    RandomDraws,
    check_image_rank,
    convert_inputs,
    is_number,
    trains,
)


class RandomContrast(Layer):
    """A preprocessing layer which randomly adjusts contrast during training.

    This layer randomly adjusts the contrast of an image or images by a random factor,
    drawn once per call (the same for every image of a batch, as TF's `random_contrast`).
    For each channel of each image, the layer computes the mean of its pixels and adjusts
    each component `x` to `(x - mean) * contrast_factor + mean`. The output is clipped to
    `[0, 255]`, the valid range of RGB colors (as Keras 2.15 does whatever the input's
    range). Input values can be of any range and of integer or floating point dtype; the
    layer outputs floats. At inference the input passes unchanged (in the layer's dtype);
    as in Keras 2.15, a call that nothing marks as inference adjusts.

    Args:
        factor: a positive float represented as fraction of value, or a tuple of size 2
            representing lower and upper bound. When a single float, lower = upper. The
            contrast factor is drawn from `[1.0 - lower, 1.0 + upper]`.
        seed: Integer. Used to create a random seed.

    Input shape: `(..., height, width, channels)` ("channels_last", 3D or 4D).
    Output shape: the same.
    """

    def __init__(self, factor: Any, seed: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self.factor = factor
        if isinstance(factor, (tuple, list)) and len(factor) == 2 and all(map(is_number, factor)):
            self.lower, self.upper = float(factor[0]), float(factor[1])
        elif is_number(factor):
            self.lower = self.upper = float(factor)
        else:
            raise ValueError(
                "`factor` must be a number or a tuple of two numbers (lower, upper). "
                f"Received: factor={factor!r}"
            )
        if self.lower < 0.0 or self.upper < 0.0 or self.lower > 1.0:
            raise ValueError(
                "`factor` argument cannot have negative values or values greater than 1. "
                f"Received: factor={factor}"
            )
        self.seed = seed
        self._draws = RandomDraws(seed)

    def call(self, inputs: Any, training: bool | None = True) -> torch.Tensor:
        """In training, the images with a random contrast factor applied and clipped to
        [0, 255]; otherwise the images unchanged."""
        x = convert_inputs(inputs, self._compute_dtype)
        if not trains(self, training):
            return x
        check_image_rank(self, x)
        low, high = 1.0 - self.lower, 1.0 + self.upper
        if high <= low:
            raise ValueError(
                f'Layer "{self.name}" (RandomContrast): upper must be > lower. The contrast '
                f"factor is drawn from [1 - {self.lower}, 1 + {self.upper}] = [{low}, {high}], "
                f"an empty range for factor={self.factor}; pass a factor above 0."
            )
        contrast = self._draws.uniform((), low, high, x.device)
        return adjust_contrast(x, contrast).clamp(0, 255)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Same as the input shape."""
        return tuple(input_shape)

    def get_config(self) -> dict:
        """Returns `factor` and `seed`."""
        config = super().get_config()
        config.update({"factor": self.factor, "seed": self.seed})
        return config


class RandomBrightness(Layer):
    """A preprocessing layer which randomly adjusts brightness during training.

    This layer randomly increases/reduces the brightness of the input RGB images, each image
    of a batch by its own amount: `delta = factor * (value_range[1] - value_range[0])` is
    added to every pixel of an image, with `factor` drawn uniformly from the layer's
    bounds, and the output is clipped to `value_range`. At inference time the output is
    the input (in the layer's dtype); call the layer with `training=True` to adjust it (as
    in Keras 2.15, a call that nothing marks as inference adjusts too).

    Args:
        factor: Float or a list/tuple of 2 floats between -1.0 and 1.0: the lower and upper
            bound of the brightness adjustment (a single float `f` means `[-f, f]`). -1.0
            makes the image black, 1.0 fully white.
        value_range: list/tuple of 2 floats, the lower and upper limit of the values of the
            input data; defaults to `[0, 255]` (use `[0.0, 1.0]` for images already scaled).
            The adjustment is scaled to this range and the output clipped to it.
        seed: optional integer, for fixed RNG behavior.

    Input shape: 3D (HWC) or 4D (NHWC), float or int dtype. Output: the same shape, floats.
    """

    _FACTOR_VALIDATION_ERROR = (
        "The `factor` argument should be a number (or a list of two numbers) "
        "in the range [-1.0, 1.0]. "
    )
    _VALUE_RANGE_VALIDATION_ERROR = "The `value_range` argument should be a list of two numbers. "

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self._set_factor(factor)
        self._set_value_range(value_range)
        self._seed = seed
        self._draws = RandomDraws(seed)

    @property
    def seed(self) -> int | None:
        """The layer's seed (None: torch's default generator)."""
        return self._seed

    def _set_value_range(self, value_range: Any) -> None:
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2 \
                or not all(map(is_number, value_range)):
            raise ValueError(self._VALUE_RANGE_VALIDATION_ERROR + f"Got {value_range}")
        self._value_range = sorted(value_range)

    def _set_factor(self, factor: Any) -> None:
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or not all(map(is_number, factor)):
                raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Got {factor}")
            self._check_factor_range(factor[0])
            self._check_factor_range(factor[1])
            self._factor = sorted(factor)
        elif is_number(factor):
            self._check_factor_range(factor)
            factor = abs(factor)
            self._factor = [-factor, factor]
        else:
            raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Got {factor}")

    def _check_factor_range(self, input_number: float) -> None:
        if input_number > 1.0 or input_number < -1.0:
            raise ValueError(self._FACTOR_VALIDATION_ERROR + f"Got {input_number}")

    def call(self, inputs: Any, training: bool | None = True) -> torch.Tensor:
        """In training, each image brightened by its random delta and clipped to
        `value_range`; otherwise the images unchanged."""
        x = convert_inputs(inputs, self._compute_dtype)
        if not trains(self, training):
            return x
        check_image_rank(self, x)
        shape = (x.shape[0], 1, 1, 1) if x.dim() == 4 else (1, 1, 1)
        low, high = self._value_range
        delta = self._draws.uniform(shape, self._factor[0], self._factor[1], x.device)
        delta = (delta * (high - low)).to(x.dtype)
        return (x + delta).clamp(low, high)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Same as the input shape."""
        return tuple(input_shape)

    def get_config(self) -> dict:
        """Returns `factor` and `value_range` (as sorted lists) and `seed`."""
        config = super().get_config()
        config.update({
            "factor": list(self._factor), "value_range": list(self._value_range),
            "seed": self._seed,
        })
        return config
