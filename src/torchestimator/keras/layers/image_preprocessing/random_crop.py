"""`RandomCrop`: crops a random window of a batch during training (`tf.keras.layers.RandomCrop`)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.image_preprocessing._base import (
    RandomDraws,
    check_image_rank,
    check_positive_int,
    convert_inputs,
    trains,
)
from torchestimator.keras.layers.image_preprocessing.resizing import resize_output_shape
from torchestimator.keras.utils._image_utils import smart_resize


class RandomCrop(Layer):
    """A preprocessing layer which randomly crops images during training.

    During training, this layer randomly chooses a location to crop images down to a
    target size; all the images of a batch are cropped at the same location. At inference
    time, and during training if an input image is smaller than the target size, the input
    is resized and cropped so as to return the largest possible window in the image that
    matches the target aspect ratio. To crop randomly at inference time, call the layer
    with `training=True`. Input values can be of any range and of integer or floating
    point dtype; the layer outputs floats.

    As in Keras 2.15, a call that nothing marks as inference (no `training=` argument,
    outside `evaluate`/`predict`) trains: `layer(images)` crops randomly.

    Args:
        height: Integer, the height of the output shape.
        width: Integer, the width of the output shape.
        seed: Integer. Used to create a random seed.

    Input shape: `(..., height, width, channels)` ("channels_last", 3D or 4D).
    Output shape: `(..., target_height, target_width, channels)`.
    """

    def __init__(self, height: int, width: int, seed: int | None = None, **kwargs: Any):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        self.training = True  # augments unless told not to (see _base.trains)
        self.height = check_positive_int(height, "height", "RandomCrop")
        self.width = check_positive_int(width, "width", "RandomCrop")
        self.seed = seed
        self._draws = RandomDraws(seed)

    def call(self, inputs: Any, training: bool | None = True) -> torch.Tensor:
        """In training, a random `(height, width)` window of the images; otherwise (or when
        the images are smaller) the aspect-preserving center crop and resize."""
        x = convert_inputs(inputs, self._compute_dtype)
        check_image_rank(self, x)
        h_diff = x.shape[-3] - self.height
        w_diff = x.shape[-2] - self.width
        if trains(self, training) and h_diff >= 0 and w_diff >= 0:
            top = self._draws.randint(h_diff + 1)
            left = self._draws.randint(w_diff + 1)
            return x[..., top:top + self.height, left:left + self.width, :]
        return smart_resize(x, (self.height, self.width)).to(self._compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape with height and width set to the layer's."""
        return resize_output_shape(input_shape, self.height, self.width)

    def get_config(self) -> dict:
        """Returns `height`, `width` and `seed`."""
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "seed": self.seed})
        return config
