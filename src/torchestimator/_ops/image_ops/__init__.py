"""tf.image over torch (NHWC or HWC, as TF).

Images are `torch.Tensor`s laid out as TensorFlow lays them out: a batch is
`[batch, height, width, channels]` (NHWC), a single image `[height, width,
channels]` (HWC); every op takes both and returns the same rank. Values follow
TF's conventions: floating images are in [0, 1], integer images use their
dtype's full range (`convert_image_dtype` maps one to the other).

Resizing reproduces TF 2.x's kernels rather than torch's: `bilinear` and
`nearest` use half-pixel centers (torch's `align_corners=False` /
`nearest-exact`), `bicubic` is Keys' cubic with a = -0.5 (torch uses -0.75),
`area` averages exact pixel coverage (torch's "area" is adaptive pooling,
which differs for non-integer factors), and `antialias=True` and the
`lanczos3/5`, `gaussian`, `mitchellcubic` methods follow TF's
`scale_and_translate` filter. Every method is a separable resampling: each
output row (then column) is a weighted sum of a few input rows. The weights
of an axis form a banded matrix, computed once per (sizes, method) and cached,
and resizing is two matrix products, differentiable and on any device.

The random ops (`random_flip_left_right`, `random_crop`, `random_brightness`,
...) seed as `tf.random`'s ops do: torch's default generator (which
`tf.random.set_seed` seeds) when `seed` is None, else a generator of their own
for the (global seed, op seed) pair, which advances on every call and restarts
on `set_seed`, as TF's eager ops do. The `stateless_random_*` ops are pure
functions of their `seed` pair. The values differ from TF's (another bit
generator).
"""

from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.image_ops._codecs import (
    _MODES,
    _bytes,
    _decode,
    _encode,
    _pil,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
)
from torchestimator._ops.image_ops._color import (
    _check_bounds,
    _check_rgb,
    _float_image,
    _hsv_to_rgb,
    _rgb_to_hsv,
    _scalar_draw,
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    convert_image_dtype,
    grayscale_to_rgb,
    hsv_to_rgb,
    per_image_standardization,
    random_brightness,
    random_contrast,
    random_hue,
    random_saturation,
    rgb_to_grayscale,
    rgb_to_hsv,
    stateless_random_brightness,
)
from torchestimator._ops.image_ops._common import (
    _NOT_IMAGE_DTYPES,
    Tensor,
    _as_batch,
    _box,
    _cast,
    _check_rank,
    _image,
    _int_arg,
    _is_integer,
    _max,
    _min,
    _op_seed_generator,
    _rank_error,
    _saturate_cast,
    _stateless,
    _unbatch,
    _uniform,
)
from torchestimator._ops.image_ops._geometry import (
    _random_flip,
    central_crop,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    pad_to_bounding_box,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize_with_crop_or_pad,
    rot90,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    transpose,
)
from torchestimator._ops.image_ops._patches import _four, extract_patches
from torchestimator._ops.image_ops._resize import (
    _FLT_MIN,
    _KERNELS,
    _METHODS,
    ResizeMethod,
    _area_taps,
    _bicubic_taps,
    _f32,
    _gaussian,
    _keys_cubic,
    _keys_table,
    _lanczos,
    _mitchell_cubic,
    _nearest_index,
    _resize_matrix,
    _resize_nhwc,
    _resize_size,
    _scale_and_translate_taps,
    _triangle,
    resize,
    resize_with_pad,
)

__all__: list[str] = []  # TF has none of these at top level; tf.image imports them by name


_keep_home(globals(), __name__)
