"""`tf.keras.preprocessing.image`: Keras 2.15's image preprocessing: the `ImageDataGenerator`
augmentation pipeline and its iterators (`Iterator`, `NumpyArrayIterator`,
`DirectoryIterator`; `flow_from_dataframe` uses a private `DataFrameIterator`), the affine / channel / brightness transforms and
their `random_*` forms, and the image utilities (`load_img`, `img_to_array`, `array_to_img`,
`save_img`, and `smart_resize`, which Keras exports only here), the same functions as
`tf.keras.utils`' with the same Pillow decoding."""

from torchestimator.keras.preprocessing._affine import (
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    random_brightness,
    random_channel_shift,
    random_rotation,
    random_shear,
    random_shift,
    random_zoom,
)
from torchestimator.keras.preprocessing._image_data_generator import ImageDataGenerator
from torchestimator.keras.preprocessing._iterators import (
    DirectoryIterator,
    Iterator,
    NumpyArrayIterator,
)
from torchestimator.keras.utils._image_utils import (
    array_to_img,
    img_to_array,
    load_img,
    save_img,
    smart_resize,
)

__all__ = [
    "DirectoryIterator", "ImageDataGenerator", "Iterator",
    "NumpyArrayIterator", "apply_affine_transform", "apply_brightness_shift",
    "apply_channel_shift", "array_to_img", "img_to_array", "load_img", "random_brightness",
    "random_channel_shift", "random_rotation", "random_shear", "random_shift", "random_zoom",
    "save_img", "smart_resize",
]
