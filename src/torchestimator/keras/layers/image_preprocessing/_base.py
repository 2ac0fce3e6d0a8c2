"""Helpers shared by the image preprocessing layers: input conversion, the rank check,
factor parsing and the seeded uniform draws.

Randomness follows the project's layer convention (`core/dropout.py`'s `SeededNoise`): a
layer given `seed=` draws from its own generator per device, so two layers built with the
same seed give the same sequence of outputs; without a seed it draws from torch's default
generator (which `tf.random.set_seed` seeds). Draws that decide a shape or a slice (the crop
offset of `RandomCrop`, the size of `RandomHeight`/`RandomWidth`) are made on the CPU, so no
value is read back from an accelerator. The values differ from TF's (another bit generator).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch

from torchestimator.keras.engine.base_layer import _module_mode_decides
from torchestimator.keras.layers.core.dropout import SeededNoise

Tensor = torch.Tensor

_CPU = torch.device("cpu")


def convert_inputs(inputs: Any, dtype: torch.dtype | None = None) -> Tensor:
    """Returns the image(s) as a tensor (of `dtype` when given), as Keras' `convert_inputs`:
    a dict of images, labels and boxes is refused."""
    if isinstance(inputs, dict):
        raise ValueError(
            "This layer can only process a tensor representing an image or a batch of "
            f"images. Received: type(inputs)={type(inputs)}. If you need to pass a dict "
            "containing images, labels, and bounding boxes, you should instead use the "
            "preprocessing and augmentation layers from `keras_cv.layers`."
        )
    x = inputs if isinstance(inputs, Tensor) else torch.as_tensor(np.asarray(inputs))
    return x if dtype is None or x.dtype is dtype else x.to(dtype)


def check_image_rank(layer: Any, images: Tensor) -> None:
    """Raises ValueError unless `images` is 3-D (HWC) or 4-D (NHWC)."""
    if images.dim() not in (3, 4):
        raise ValueError(
            "Expected the input image to be rank 3 or 4. Got inputs.shape = "
            f'{tuple(images.shape)}. Layer "{layer.name}" ({type(layer).__name__}) takes '
            "images of shape (height, width, channels) or (batch, height, width, channels), "
            '"channels_last".'
        )


def as_batch(layer: Any, images: Tensor) -> tuple[Tensor, bool]:
    """Returns `(NHWC images, was_batched)` after the rank check."""
    check_image_rank(layer, images)
    return (images, True) if images.dim() == 4 else (images.unsqueeze(0), False)


def is_number(value: Any) -> bool:
    """True for a real number that is not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def factor_bounds(factor: Any, name: str) -> tuple[float, float]:
    """Returns `(lower, upper)` of a Keras factor: `(-f, f)` for a number `f`, the pair for
    a tuple or list of two numbers; ValueError otherwise."""
    if isinstance(factor, (tuple, list)):
        if len(factor) == 2 and all(is_number(v) for v in factor):
            return float(factor[0]), float(factor[1])
    elif is_number(factor):
        return -float(factor), float(factor)
    raise ValueError(
        f"`{name}` must be a number or a tuple of two numbers (lower, upper). "
        f"Received: {name}={factor!r}"
    )


def check_positive_int(value: Any, name: str, layer: str) -> int:
    """Returns `value` as an int when it is a positive integer; ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{layer}: `{name}` must be a positive integer. Received: {name}={value!r}")
    return int(value)


class RandomDraws:
    """A layer's source of uniform draws: its `SeededNoise` stream, on any device."""

    def __init__(self, seed: int | None):
        self._noise = SeededNoise(seed)

    def uniform(self, shape: tuple, low: float, high: float,
                device: torch.device = _CPU) -> Tensor:
        """Returns float32 values uniform in `[low, high)` (`low` when they are equal), as TF's
        `random_uniform`: `u * (high - low) + low` in float32."""
        low32 = torch.tensor(low, dtype=torch.float32, device=device)
        high32 = torch.tensor(high, dtype=torch.float32, device=device)
        u = torch.rand(shape, generator=self._noise.generator(device), device=device)
        return u * (high32 - low32) + low32

    def randint(self, high: int) -> int:
        """Returns a Python int uniform in `[0, high)`, drawn on the CPU."""
        return int(torch.randint(0, high, (1,), generator=self._noise.generator(_CPU)))

    def uniform_scalar(self, low: float, high: float) -> float:
        """Returns a float32 value uniform in `[low, high)` as a Python float, drawn on the
        CPU (a draw that decides a shape)."""
        return float(self.uniform((), low, high))


def trains(layer: Any, training: Any) -> bool:
    """Whether a random layer augments. An explicit `training=` (or the one a Keras front or an
    enclosing call gives: `fit` True, `evaluate`/`predict` False) decides. Otherwise the
    layer's torch mode does, as for every layer here (`model.eval()` stops augmenting,
    `model.train()` resumes: the layer call passes it) -- and these layers start in train
    mode, so a new layer or model called as `data_augmentation(images)` augments, as Keras
    2.15's default `training=True` does. Where no mode applies (inside an Estimator
    `model_fn`, TF's rule) the default True, or an explicit None, augments."""
    if training is not None:
        return bool(training)
    if _module_mode_decides():
        return bool(layer.training)
    return True
