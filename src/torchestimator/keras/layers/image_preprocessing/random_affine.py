"""`RandomRotation`, `RandomTranslation`, `RandomZoom`: random affine transforms of each
image during training, filling the empty space by `fill_mode` (`tf.keras.layers.<Name>`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.image_preprocessing._base import (
    RandomDraws,
    as_batch,
    convert_inputs,
    factor_bounds,
    trains,
)
from torchestimator.keras.layers.image_preprocessing._transform import (
    check_fill_mode_and_interpolation,
    projective_transform,
    rotation_matrix,
    translation_matrix,
    zoom_matrix,
)

_FILL_DOC = """fill_mode: Points outside the boundaries of the input are filled according to
            the given mode: `"reflect"` (default; `(d c b a | a b c d | d c b a)`, reflecting
            about the edge of the last pixel), `"constant"` (`(k k k k | a b c d | k k k k)`,
            k = `fill_value`), `"wrap"` (`(a b c d | a b c d | a b c d)`) or `"nearest"`
            (`(a a a a | a b c d | d d d d)`)."""


class _AffineMixin:
    """The shared part of the affine layers: the fill arguments, the training switch and the
    transform of an NHWC batch by the `[N, 8]` matrices `_matrices` draws."""

    fill_mode: str
    fill_value: float
    interpolation: str
    seed: int | None

    def _set_fill(self, fill_mode: str, interpolation: str, fill_value: float,
                  seed: int | None) -> None:
        check_fill_mode_and_interpolation(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.seed = seed
        self._draws = RandomDraws(seed)

    def _matrices(self, batch: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        raise NotImplementedError

    def call(self, inputs: Any, training: bool | None = True) -> torch.Tensor:
        """In training, each image transformed at random; otherwise the images unchanged."""
        x = convert_inputs(inputs, self._compute_dtype)
        if not trains(self, training):
            return x
        batch, batched = as_batch(self, x)
        n, height, width, _ = batch.shape
        out = projective_transform(
            batch, self._matrices(n, height, width, batch.device), fill_mode=self.fill_mode,
            fill_value=self.fill_value, interpolation=self.interpolation,
        )
        return out if batched else out.squeeze(0)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Same as the input shape."""
        return tuple(input_shape)

    def _fill_config(self) -> dict:
        return {
            "fill_mode": self.fill_mode, "fill_value": self.fill_value,
            "interpolation": self.interpolation, "seed": self.seed,
        }


class RandomRotation(_AffineMixin, Layer):
    __doc__ = f"""A preprocessing layer which randomly rotates images during training.

    This layer applies random rotations to each image, filling empty space according to
    `fill_mode`. At inference time the layer does nothing (the input in the layer's float
    dtype); call it with `training=True` to rotate at inference. As in Keras 2.15, a call
    that nothing marks as inference (no `training=`, outside `evaluate`/`predict`) rotates.

    Args:
        factor: a float represented as fraction of 2 Pi, or a tuple of size 2 representing
            lower and upper bound for rotating clockwise and counter-clockwise. A positive
            value means rotating counter clock-wise, a negative value clock-wise.
            `factor=(-0.2, 0.3)` rotates by a random amount in `[-20% * 2pi, 30% * 2pi]`;
            `factor=0.2` in `[-20% * 2pi, 20% * 2pi]`.
        {_FILL_DOC}
        interpolation: Interpolation mode: `"nearest"` or `"bilinear"` (default).
        seed: Integer. Used to create a random seed.
        fill_value: a float, the value filled outside the boundaries when
            `fill_mode="constant"`.

    Input shape: `(..., height, width, channels)` ("channels_last", 3D or 4D).
    Output shape: the same.
    """

    def __init__(self, factor: Any, fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: int | None = None, fill_value: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self.factor = factor
        self.lower, self.upper = factor_bounds(factor, "factor")
        if self.upper < self.lower:
            raise ValueError(
                "`factor` argument cannot have a negative value. "
                f"Received: factor={factor}"
            )
        self._set_fill(fill_mode, interpolation, fill_value, seed)

    def _matrices(self, batch: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        angles = self._draws.uniform(
            (batch,), self.lower * 2.0 * np.pi, self.upper * 2.0 * np.pi, device
        )
        return rotation_matrix(angles, float(height), float(width))

    def get_config(self) -> dict:
        """Returns `factor`, `fill_mode`, `fill_value`, `interpolation` and `seed`."""
        config = super().get_config()
        config.update({"factor": self.factor, **self._fill_config()})
        return config


def _check_translation(factor: Any, name: str) -> tuple[float, float]:
    lower, upper = factor_bounds(factor, name)
    if upper < lower:
        raise ValueError(
            f"`{name}` cannot have upper bound less than lower bound, got {factor}"
        )
    if abs(lower) > 1.0 or abs(upper) > 1.0:
        if name == "height_factor":  # (Keras words the two differently)
            raise ValueError(
                "`height_factor` argument must have values between [-1, 1]. "
                f"Received: height_factor={factor}"
            )
        raise ValueError(f"`width_factor` must have values between [-1, 1], got {factor}")
    return lower, upper


class RandomTranslation(_AffineMixin, Layer):
    __doc__ = f"""A preprocessing layer which randomly translates images during training.

    This layer applies random translations to each image, filling empty space according to
    `fill_mode`. At inference time the layer does nothing (the input in the layer's float
    dtype). As in Keras 2.15, a call that nothing marks as inference translates.

    Args:
        height_factor: a float represented as fraction of value, or a tuple of size 2
            representing lower and upper bound for shifting vertically. A negative value
            means shifting image up, a positive value shifting image down. `0.2` shifts by
            a random amount in `[-20%, +20%]` of the height; `(-0.2, 0.3)` in `[-20%, +30%]`.
        width_factor: the same for shifting horizontally (negative: left, positive: right).
        {_FILL_DOC}
        interpolation: Interpolation mode: `"nearest"` or `"bilinear"` (default).
        seed: Integer. Used to create a random seed.
        fill_value: a float, the value filled outside the boundaries when
            `fill_mode="constant"`.

    Input shape: `(..., height, width, channels)` ("channels_last", 3D or 4D).
    Output shape: the same.
    """

    def __init__(self, height_factor: Any, width_factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | None = None,
                 fill_value: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _check_translation(height_factor, "height_factor")
        self.width_factor = width_factor
        self.width_lower, self.width_upper = _check_translation(width_factor, "width_factor")
        self._set_fill(fill_mode, interpolation, fill_value, seed)

    def _matrices(self, batch: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        dy = self._draws.uniform((batch, 1), self.height_lower, self.height_upper, device)
        dx = self._draws.uniform((batch, 1), self.width_lower, self.width_upper, device)
        shifts = torch.cat([dx * float(width), dy * float(height)], dim=1)
        return translation_matrix(shifts)

    def get_config(self) -> dict:
        """Returns the factors, `fill_mode`, `fill_value`, `interpolation` and `seed`."""
        config = super().get_config()
        config.update({
            "height_factor": self.height_factor, "width_factor": self.width_factor,
            **self._fill_config(),
        })
        return config


class RandomZoom(_AffineMixin, Layer):
    __doc__ = f"""A preprocessing layer which randomly zooms images during training.

    This layer randomly zooms in or out on each axis of each image independently, filling
    empty space according to `fill_mode`. At inference time the layer does nothing (the
    input in the layer's float dtype). As in Keras 2.15, a call that nothing marks as
    inference zooms.

    Args:
        height_factor: a float represented as fraction of value, or a tuple of size 2
            representing lower and upper bound for zooming vertically. A positive value
            means zooming out, a negative value zooming in: `(0.2, 0.3)` zooms out by a
            random amount in `[+20%, +30%]`, `(-0.3, -0.2)` zooms in by `[+20%, +30%]`.
        width_factor: the same for zooming horizontally; `None` (default) zooms both
            directions by the same amount, preserving the aspect ratio.
        {_FILL_DOC}
        interpolation: Interpolation mode: `"nearest"` or `"bilinear"` (default).
        seed: Integer. Used to create a random seed.
        fill_value: a float, the value filled outside the boundaries when
            `fill_mode="constant"`.

    Input shape: `(..., height, width, channels)` ("channels_last", 3D or 4D).
    Output shape: the same.
    """

    def __init__(self, height_factor: Any, width_factor: Any = None, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | None = None,
                 fill_value: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = factor_bounds(height_factor, "height_factor")
        if abs(self.height_lower) > 1.0 or abs(self.height_upper) > 1.0:
            raise ValueError(
                "`height_factor` argument must have values between [-1, 1]. "
                f"Received: height_factor={height_factor}"
            )
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = factor_bounds(width_factor, "width_factor")
            if self.width_lower < -1.0 or self.width_upper < -1.0:
                raise ValueError(
                    "`width_factor` argument must have values larger than -1. "
                    f"Received: width_factor={width_factor}"
                )
        self._set_fill(fill_mode, interpolation, fill_value, seed)

    def _matrices(self, batch: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        zy = self._draws.uniform(
            (batch, 1), 1.0 + self.height_lower, 1.0 + self.height_upper, device
        )
        if self.width_factor is None:
            zx = zy
        else:
            zx = self._draws.uniform(
                (batch, 1), 1.0 + self.width_lower, 1.0 + self.width_upper, device
            )
        return zoom_matrix(torch.cat([zx, zy], dim=1), float(height), float(width))

    def get_config(self) -> dict:
        """Returns the factors, `fill_mode`, `fill_value`, `interpolation` and `seed`."""
        config = super().get_config()
        config.update({
            "height_factor": self.height_factor, "width_factor": self.width_factor,
            **self._fill_config(),
        })
        return config
