"""`tf.image`: TensorFlow's image ops over torch (NHWC batches or HWC images, as TF)."""

from torchestimator._ops.image_boxes import (
    crop_and_resize,
    draw_bounding_boxes,
    extract_glimpse,
    sample_distorted_bounding_box,
    stateless_sample_distorted_bounding_box,
)
from torchestimator._ops.image_codecs import decode_bmp, decode_gif, decode_image
from torchestimator._ops.image_color import rgb_to_yiq, rgb_to_yuv, yiq_to_rgb, yuv_to_rgb
from torchestimator._ops.image_nms import (
    combined_non_max_suppression,
    generate_bounding_box_proposals,
    non_max_suppression,
    non_max_suppression_overlaps,
    non_max_suppression_padded,
    non_max_suppression_with_scores,
)
from torchestimator._ops.image_ops import (
    ResizeMethod,
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    extract_patches,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    hsv_to_rgb,
    pad_to_bounding_box,
    per_image_standardization,
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    random_hue,
    random_saturation,
    resize,
    resize_with_crop_or_pad,
    resize_with_pad,
    rgb_to_grayscale,
    rgb_to_hsv,
    rot90,
    stateless_random_brightness,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    transpose,
)
from torchestimator._ops.image_quality import (
    image_gradients,
    psnr,
    sobel_edges,
    ssim,
    ssim_multiscale,
    total_variation,
)
from torchestimator._ops.image_random import (
    adjust_jpeg_quality,
    decode_and_crop_jpeg,
    extract_jpeg_shape,
    is_jpeg,
    random_jpeg_quality,
    stateless_random_contrast,
    stateless_random_crop,
    stateless_random_hue,
    stateless_random_jpeg_quality,
    stateless_random_saturation,
)

# Last: tf.image ops given symbolic Keras tensors record TFOpLambda layers (_ops/symbolic_dispatch.py)
from torchestimator._ops.symbolic_dispatch import wrap_namespace as _wrap_namespace  # noqa: E402

_wrap_namespace(globals(), "image")
