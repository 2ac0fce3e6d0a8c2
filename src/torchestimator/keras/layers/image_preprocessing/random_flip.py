"""`RandomFlip`: flips images horizontally and/or vertically at random during training
(`tf.keras.layers.RandomFlip`)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.image_preprocessing._base import (
    RandomDraws,
    as_batch,
    convert_inputs,
    trains,
)

HORIZONTAL = "horizontal"
VERTICAL = "vertical"
HORIZONTAL_AND_VERTICAL = "horizontal_and_vertical"


def _flip_some(images: torch.Tensor, axis: int, draws: RandomDraws) -> torch.Tensor:
    """Flips each image of an NHWC batch along `axis` with probability 1/2."""
    flips = draws.uniform((images.shape[0],), 0.0, 1.0, images.device) < 0.5
    return torch.where(flips.view(-1, 1, 1, 1), torch.flip(images, (axis,)), images)


class RandomFlip(Layer):
    """A preprocessing layer which randomly flips images during training.

    This layer flips the images horizontally and/or vertically based on `mode`, each image
    of a batch independently with probability 1/2 (per direction). During inference the
    output is identical to the input (in the layer's float dtype). Call the layer with
    `training=True` to flip the input; as in Keras 2.15, a call that nothing marks as
    inference (no `training=` argument, outside `evaluate`/`predict`) flips too.

    Args:
        mode: `"horizontal"` (a left-right flip), `"vertical"` (a top-bottom flip) or
            `"horizontal_and_vertical"` (the default).
        seed: Integer. Used to create a random seed.

    Input shape: `(..., height, width, channels)` ("channels_last", 3D or 4D).
    Output shape: the same.
    """

    def __init__(self, mode: str = HORIZONTAL_AND_VERTICAL, seed: int | None = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        if mode not in (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL):
            raise ValueError(
                f"RandomFlip layer {self.name} received an unknown mode argument {mode}"
                f" (expected one of '{HORIZONTAL}', '{VERTICAL}', '{HORIZONTAL_AND_VERTICAL}')"
            )
        self.mode = mode
        self.horizontal = mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL)
        self.vertical = mode in (VERTICAL, HORIZONTAL_AND_VERTICAL)
        self.seed = seed
        self._draws = RandomDraws(seed)

    def call(self, inputs: Any, training: bool | None = True) -> torch.Tensor:
        """In training, the images with random flips; otherwise the images unchanged."""
        x = convert_inputs(inputs, self._compute_dtype)
        if not trains(self, training):
            return x
        batch, batched = as_batch(self, x)
        if self.horizontal:
            batch = _flip_some(batch, 2, self._draws)
        if self.vertical:
            batch = _flip_some(batch, 1, self._draws)
        return batch if batched else batch.squeeze(0)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Same as the input shape."""
        return tuple(input_shape)

    def get_config(self) -> dict:
        """Returns `mode` and `seed`."""
        config = super().get_config()
        config.update({"mode": self.mode, "seed": self.seed})
        return config
