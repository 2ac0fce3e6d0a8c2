"""`tf.keras.preprocessing.image`: Keras 2.15's image utilities (`load_img`, `img_to_array`,
`array_to_img`, `save_img`, and `smart_resize`, which Keras exports only here); the same
functions as `tf.keras.utils`' and the same Pillow decoding."""

from torchestimator.keras.utils._image_utils import (
    array_to_img,
    img_to_array,
    load_img,
    save_img,
    smart_resize,
)

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
