"""Records TensorFlow 2.15's outputs of the tf.image ops added for issue 32 (color spaces,
quality measures, gradients, boxes, non-max suppression, glimpses) to
tests/_ops/fixtures/image_more.json.

Run by hand with a TensorFlow venv (TensorFlow is never a dependency of the package or tests):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_image_ops_fixtures.py

Each case is {"op", "args" ({"b64" (little-endian bytes), "dtype", "shape"} for arrays), "kwargs", "expected" (one
encoded array, or a list of them for ops returning tuples)}; tests/_ops/test_image_more.py
replays them.
"""

from __future__ import annotations

import base64
import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "_ops",
                   "fixtures", "image_more.json")
rng = np.random.default_rng(32)
RGB = rng.random((2, 5, 6, 3), dtype=np.float32)
RGB64 = rng.random((4, 3, 3))
IMG = rng.random((2, 16, 18, 2), dtype=np.float32)
IMG_U8 = rng.integers(0, 256, (1, 13, 12, 3), dtype=np.uint8)
NOISY = np.clip(IMG + 0.1 * rng.standard_normal(IMG.shape).astype(np.float32), 0, 1)
BIG = rng.random((1, 48, 40, 1), dtype=np.float32)
BIG2 = np.clip(BIG + 0.2 * rng.standard_normal(BIG.shape).astype(np.float32), 0, 1)
BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                  [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0], [0.5, 0.5, 0.5, 0.9]],
                 np.float32)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.85, 0.99], np.float32)
RBOX = np.concatenate([np.sort(rng.random((30, 2, 2), dtype=np.float32), 1).reshape(30, 4)
                       [:, [0, 1, 2, 3]]], 0)
RBOX = np.stack([np.minimum(RBOX[:, 0], RBOX[:, 2]), np.minimum(RBOX[:, 1], RBOX[:, 3]),
                 np.maximum(RBOX[:, 0], RBOX[:, 2]), np.maximum(RBOX[:, 1], RBOX[:, 3])], 1)
RSCORES = rng.random(30, dtype=np.float32)


def _enc(x):
    if isinstance(x, (tuple, list)) and x and isinstance(x[0], (tf.Tensor, np.ndarray)):
        return [_enc(v) for v in x]
    if isinstance(x, tf.Tensor):
        x = np.asarray(x.numpy())
    if isinstance(x, np.ndarray):
        data = base64.b64encode(np.ascontiguousarray(x).astype(x.dtype.newbyteorder("<"))
                                .tobytes()).decode("ascii")
        return {"b64": data, "dtype": str(x.dtype), "shape": list(x.shape)}
    return x


cases: list[dict] = []


def record(op: str, *args, **kwargs):
    out = getattr(tf.image, op)(*[tf.constant(a) if isinstance(a, np.ndarray) else a
                                  for a in args], **kwargs)
    cases.append({"op": op, "args": [_enc(a) for a in args], "kwargs": kwargs,
                  "expected": _enc(out)})


# ---------------------------------------------------------------------------- color
for op in ("rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb"):
    record(op, RGB)
    record(op, RGB64)

# ---------------------------------------------------------------------------- measures
record("total_variation", IMG)
record("total_variation", IMG[0])
record("total_variation", IMG_U8.astype(np.int32))
record("psnr", IMG, NOISY, 1.0)
record("psnr", IMG_U8, np.flipud(IMG_U8).copy(), 255)
record("psnr", IMG[0], NOISY[0], 2.0)
record("ssim", IMG, NOISY, 1.0)
record("ssim", IMG, NOISY, 1.0, filter_size=5, filter_sigma=0.8, k1=0.02, k2=0.05)
record("ssim", IMG[:1], NOISY[:1], 1.0, filter_size=7, return_index_map=True)
record("ssim", IMG_U8, IMG_U8[:, ::-1].copy(), 255, filter_size=7)
record("ssim", IMG[0].astype(np.float64), NOISY[0].astype(np.float64), 1.0)
record("ssim_multiscale", BIG, BIG2, 1.0, filter_size=3)
record("ssim_multiscale", BIG[:, :45, :37], BIG2[:, :45, :37], 1.0, filter_size=3)
record("ssim_multiscale", BIG, BIG2, 1.0, power_factors=(0.5, 0.5), filter_size=5)
record("image_gradients", IMG)
record("sobel_edges", IMG)
record("sobel_edges", RGB.astype(np.float64))

# ---------------------------------------------------------------------------- boxes
CROP_BOXES = np.array([[0.1, 0.2, 0.7, 0.9], [0.8, 0.9, 0.1, 0.05], [-0.2, -0.1, 1.3, 1.1],
                       [0.5, 0.5, 0.5, 0.5]], np.float32)
record("crop_and_resize", IMG, CROP_BOXES, np.array([0, 1, 1, 0], np.int32), [5, 4])
record("crop_and_resize", IMG, CROP_BOXES, np.array([1, 0, 1, 0], np.int32), [3, 7],
       method="nearest", extrapolation_value=-1.0)
record("crop_and_resize", IMG_U8, CROP_BOXES[:3], np.array([0, 0, 0], np.int32), [1, 1])
record("crop_and_resize", IMG_U8, CROP_BOXES[:3], np.array([0, 0, 0], np.int32), [6, 2],
       extrapolation_value=7.0)
DRAW = np.array([[[0.1, 0.1, 0.8, 0.8], [0.5, -0.2, 1.4, 0.5], [0.7, 0.7, 0.2, 0.9],
                  [1.5, 0, 2, 1], [0, 0, 1, 1]]], np.float32)
record("draw_bounding_boxes", RGB[:1] * 0, DRAW, np.array([[0.5, 0.2, 0.1], [1, 0, 1]],
                                                           np.float32))
record("draw_bounding_boxes", RGB[:1, :, :, :1] * 0, DRAW, None)
record("draw_bounding_boxes", np.zeros((2, 7, 9, 4), np.float32), np.concatenate([DRAW, DRAW]),
       np.array([[0.5, 0.2, 0.1, 0.9]], np.float32))
record("draw_bounding_boxes", IMG_U8.astype(np.float32), DRAW, np.array([[255, 0, 0, 255]], np.float32))
GIMG = np.arange(2 * 6 * 8 * 2, dtype=np.float32).reshape(2, 6, 8, 2)
for centered in (True, False):
    for normalized in (True, False):
        offs = np.array([[0.3, -0.4], [-0.6, -1.3]] if centered or not normalized
                        else [[0.3, 0.4], [0.75, 0.1]], np.float32)
        record("extract_glimpse", GIMG, [3, 4], offs, centered=centered, normalized=normalized,
               noise="zero")
record("extract_glimpse", GIMG, [2, 2], np.array([[1.2, 2.7], [2.6, 3.5]], np.float32),
       centered=False, normalized=False)

# ---------------------------------------------------------------------------- NMS
record("non_max_suppression", BOXES, SCORES, 10)
record("non_max_suppression", BOXES, SCORES, 3)
record("non_max_suppression", BOXES, SCORES, 10, iou_threshold=0.85, score_threshold=0.55)
record("non_max_suppression", RBOX, RSCORES, 20, iou_threshold=0.3)
record("non_max_suppression_with_scores", BOXES, SCORES, 10)
record("non_max_suppression_with_scores", BOXES, SCORES, 10, soft_nms_sigma=0.5)
record("non_max_suppression_with_scores", RBOX, RSCORES, 30, soft_nms_sigma=0.3,
       score_threshold=0.2)
record("non_max_suppression_with_scores", RBOX, RSCORES, 30, iou_threshold=0.2,
       soft_nms_sigma=0.0)
OV = rng.random((8, 8), dtype=np.float32)
record("non_max_suppression_overlaps", OV, SCORES, 8)
record("non_max_suppression_overlaps", OV, SCORES, 8, overlap_threshold=0.8,
       score_threshold=0.6)
record("non_max_suppression_padded", BOXES, SCORES, 6)
record("non_max_suppression_padded", BOXES, SCORES, 6, pad_to_max_output_size=True)
record("non_max_suppression_padded", RBOX, RSCORES, 12, iou_threshold=0.3,
       pad_to_max_output_size=True)
record("non_max_suppression_padded", np.stack([BOXES, BOXES[::-1]]), np.stack([SCORES, SCORES]),
       6, score_threshold=0.55, pad_to_max_output_size=True)
CB = np.stack([RBOX[:10, None], RBOX[10:20, None]])  # [2, 10, 1, 4]
CS = np.stack([RSCORES[:30].reshape(10, 3), RSCORES[::-1].reshape(10, 3)])  # [2, 10, 3]
record("combined_non_max_suppression", CB, CS, 3, 7)
record("combined_non_max_suppression", CB, CS, 2, 20, iou_threshold=0.3, score_threshold=0.3,
       pad_per_class=True)
record("combined_non_max_suppression", np.tile(CB, (1, 1, 3, 1)) * 1.5 - 0.2, CS, 4, 5,
       clip_boxes=False)
record("combined_non_max_suppression", np.tile(CB, (1, 1, 3, 1)) * 1.5 - 0.2, CS, 4, 6)

# ---------------------------------------------------------------------------- JPEG (separate file:
# Pillow's libjpeg is compared with a tolerance, not bit for bit)
yy, xx = np.mgrid[0:16, 0:24]
SMOOTH = np.stack([yy * 12, xx * 9, (yy + xx) * 5], -1).astype(np.uint8)
JPEG = tf.io.encode_jpeg(tf.constant(SMOOTH), quality=90).numpy()
jpeg_cases = {
    "image": _enc(SMOOTH),
    "jpeg_b64": base64.b64encode(JPEG).decode("ascii"),
    "adjust_q30": _enc(tf.image.adjust_jpeg_quality(tf.constant(SMOOTH), 30)),
    "adjust_q95": _enc(tf.image.adjust_jpeg_quality(tf.constant(SMOOTH), 95)),
    "adjust_gray_q50": _enc(tf.image.adjust_jpeg_quality(tf.constant(SMOOTH[:, :, :1]), 50)),
    "adjust_float_q80": _enc(tf.image.adjust_jpeg_quality(
        tf.constant(SMOOTH.astype(np.float32) / 255), 80)),
    "extract_jpeg_shape": _enc(tf.image.extract_jpeg_shape(JPEG)),
    "extract_jpeg_shape_int64": _enc(tf.image.extract_jpeg_shape(JPEG, output_type=tf.int64)),
    "is_jpeg": bool(tf.image.is_jpeg(JPEG).numpy()),
    "is_jpeg_png": bool(tf.image.is_jpeg(tf.io.encode_png(tf.constant(SMOOTH))).numpy()),
    "decode_and_crop": _enc(tf.image.decode_and_crop_jpeg(JPEG, [3, 5, 8, 10])),
    "decode_and_crop_gray": _enc(tf.image.decode_and_crop_jpeg(JPEG, [0, 0, 16, 4],
                                                               channels=1)),
}
JPEG_OUT = os.path.join(os.path.dirname(OUT), "image_jpeg.json")
with open(JPEG_OUT + ".tmp", "w") as f:
    json.dump({"tensorflow": tf.__version__, **jpeg_cases}, f)
os.replace(JPEG_OUT + ".tmp", JPEG_OUT)

os.makedirs(os.path.dirname(OUT), exist_ok=True)
tmp = OUT + ".tmp"
with open(tmp, "w") as f:  # one case a line
    f.write('{"tensorflow": ' + json.dumps(tf.__version__) + ', "cases": [\n')
    f.write(",\n".join(json.dumps(c) for c in cases))
    f.write("\n]}\n")
os.replace(tmp, OUT)
print(f"wrote {len(cases)} cases to {OUT}")
