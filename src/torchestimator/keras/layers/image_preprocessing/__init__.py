"""Keras layers: image preprocessing and augmentation -- `Resizing`, `CenterCrop`, and the
random layers `RandomCrop`, `RandomFlip`, `RandomRotation`, `RandomTranslation`,
`RandomZoom`, `RandomContrast`, `RandomBrightness`, `RandomHeight`, `RandomWidth`.

Images are channels-last tensors, `(height, width, channels)` or `(batch, height, width,
channels)`, of any value range and of integer or floating dtype; the layers output floats.
The random layers augment in training (`fit`, `training=True`, or -- as in Keras 2.15 -- a
call that nothing marks as inference) and pass the input through in `evaluate`/`predict`
and with `training=False` (`RandomCrop` then center-crops). They run on the input's device.
"""

from torchestimator.keras.layers.image_preprocessing.random_affine import (
    RandomRotation,
    RandomTranslation,
    RandomZoom,
)
from torchestimator.keras.layers.image_preprocessing.random_color import (
    RandomBrightness,
    RandomContrast,
)
from torchestimator.keras.layers.image_preprocessing.random_crop import RandomCrop
from torchestimator.keras.layers.image_preprocessing.random_flip import RandomFlip
from torchestimator.keras.layers.image_preprocessing.random_size import RandomHeight, RandomWidth
from torchestimator.keras.layers.image_preprocessing.resizing import CenterCrop, Resizing

__all__ = [
    "CenterCrop", "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip",
    "RandomHeight", "RandomRotation", "RandomTranslation", "RandomWidth", "RandomZoom",
    "Resizing",
]
