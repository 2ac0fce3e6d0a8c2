"""Writes the Keras 2.15 fixtures of tests/keras/preprocessing/test_image_data_generator.py and
test_sequence_extras.py.

    ~/anchor-venvs/tf215/bin/python tools/make_tf_preprocessing_image_fixtures.py

Writes tests/keras/preprocessing/fixtures/tf_preprocessing_image.npz (every key names what made
it; the inputs are made by `make_inputs`, which the tests repeat):

  affine/<case>/<fill_mode>/<order>   `apply_affine_transform(image, **AFFINE_CASES[case],
                                      fill_mode, cval=0.5, order)` of the channels-last `image`
  affine_cf/<case>                    the same on the channels-first image (nearest, order 1)
  channel_shift/<i>                   `apply_channel_shift(image, CHANNEL_SHIFTS[i], 2)`
  brightness/<scale>/<name>           `apply_brightness_shift` of `image` * 255 (`u8`) or of a
                                      [-50, 400] image (`wide`) by 1.3
  fit/<name>/{mean,std,zca,out}       `ImageDataGenerator(...).fit(batch)` statistics and
                                      `standardize(batch.copy())`
  random/<name>                       `np.random.seed(7)` then a `random_*` function of `image`
  grt/<key>, grt_image                `get_random_transform(image.shape, seed=3)` of `FULL` and
                                      `random_transform(image, seed=3)`
  flow/<b>/{x,y}                      `FULL.flow(batch, labels, batch_size=3, seed=11)` batches
  dir/...                             `flow_from_directory` on the tree `make_tree` writes
  ts/..., sampling_table, skipgrams   the `sequence` utilities

Tests never import TensorFlow; they read this file.
"""

from __future__ import annotations

import json
import os
import random
import tempfile

import numpy as np

AFFINE_CASES = {
    "rot": {"theta": 30.0},
    "shift": {"tx": 2.5, "ty": -1.5},
    "shear": {"shear": 20.0},
    "zoom": {"zx": 0.7, "zy": 1.4},
    "all": {"theta": -45.0, "tx": 1.0, "ty": 2.0, "shear": 10.0, "zx": 1.2, "zy": 0.8},
}
CHANNEL_SHIFTS = [0.3, -0.2]
FULL = dict(rotation_range=25, width_shift_range=0.2, height_shift_range=[1, 2],
            shear_range=10, zoom_range=0.2, channel_shift_range=0.1, horizontal_flip=True,
            vertical_flip=True, brightness_range=(0.8, 1.2), fill_mode="reflect")


def make_inputs() -> dict:
    """The fixture inputs (the tests make the same arrays)."""
    rng = np.random.default_rng(0)
    return {
        "image": rng.random((7, 9, 3)).astype("float32"),
        "batch": rng.random((6, 5, 4, 3)).astype("float32"),
        "labels": np.array([0, 1, 0, 1, 1, 0]),
        "wide": (rng.random((5, 6, 3)) * 450 - 50).astype("float32"),
        "series": np.arange(40, dtype="float32").reshape(20, 2),
    }


def make_tree(root: str) -> None:
    """A small class-per-folder image tree (PNG, so lossless) under `root`."""
    from PIL import Image

    rng = np.random.default_rng(1)
    layout = {"cats": ["c1.png", "c0.png", "c2.png", "sub/c3.png"],
              "dogs": ["d0.png", "d1.png", "notes.txt"], "birds": ["b0.png"]}
    for cls, names in layout.items():
        for name in names:
            path = os.path.join(root, cls, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if name.endswith(".txt"):
                with open(path, "w") as f:
                    f.write("not an image")
                continue
            arr = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
            Image.fromarray(arr).save(path)


def main() -> None:
    from keras.src.preprocessing import image as kimage
    from keras.src.preprocessing import sequence as kseq

    inp = make_inputs()
    img = inp["image"]
    out: dict[str, np.ndarray] = {}
    for case, kw in AFFINE_CASES.items():
        for mode in ("constant", "nearest", "reflect", "wrap"):
            for order in (0, 1):
                out[f"affine/{case}/{mode}/{order}"] = kimage.apply_affine_transform(
                    img, **kw, row_axis=0, col_axis=1, channel_axis=2, fill_mode=mode,
                    cval=0.5, order=order)
        out[f"affine_cf/{case}"] = kimage.apply_affine_transform(
            np.moveaxis(img, 2, 0), **kw, row_axis=1, col_axis=2, channel_axis=0)
    for i, s in enumerate(CHANNEL_SHIFTS):
        out[f"channel_shift/{i}"] = kimage.apply_channel_shift(img, s, 2)
    for scale in (True, False):
        out[f"brightness/{scale}/u8"] = kimage.apply_brightness_shift(img * 255, 1.3, scale)
        out[f"brightness/{scale}/wide"] = kimage.apply_brightness_shift(inp["wide"], 1.3, scale)
    batch = inp["batch"]
    configs = {"center_std": dict(featurewise_center=True, featurewise_std_normalization=True),
               "zca": dict(zca_whitening=True, zca_epsilon=0.1),
               "sample": dict(samplewise_center=True, samplewise_std_normalization=True,
                              rescale=2.0)}
    for name, kw in configs.items():
        gen = kimage.ImageDataGenerator(**kw)
        gen.fit(batch)
        for attr, key in (("mean", "mean"), ("std", "std"), ("zca_whitening_matrix", "zca")):
            if getattr(gen, attr) is not None:
                out[f"fit/{name}/{key}"] = getattr(gen, attr)
        out[f"fit/{name}/out"] = gen.standardize(batch.copy())
    randoms = {
        "rotation": lambda x: kimage.random_rotation(x, 40, 0, 1, 2),
        "shift": lambda x: kimage.random_shift(x, 0.3, 0.2, 0, 1, 2, fill_mode="wrap"),
        "shear": lambda x: kimage.random_shear(x, 30, 0, 1, 2, fill_mode="constant"),
        "zoom": lambda x: kimage.random_zoom(x, (0.6, 1.3), 0, 1, 2),
        "channel_shift": lambda x: kimage.random_channel_shift(x, 0.4, 2),
        "brightness": lambda x: kimage.random_brightness(x * 255, (0.5, 1.5)),
    }
    for name, fn in randoms.items():
        np.random.seed(7)
        out[f"random/{name}"] = fn(img)
    full = kimage.ImageDataGenerator(**FULL)
    for k, v in full.get_random_transform(img.shape, seed=3).items():
        out[f"grt/{k}"] = np.asarray(v if v is not None else np.nan, dtype="float64")
    out["grt_image"] = full.random_transform(img, seed=3)
    flow = full.flow(batch, inp["labels"], batch_size=4, seed=11)
    for b in range(len(flow)):
        out[f"flow/{b}/x"], out[f"flow/{b}/y"] = flow[b]
    flow.on_epoch_end()
    out["flow/epoch2/x"], out["flow/epoch2/y"] = flow[0]
    nxt = full.flow(batch, batch_size=4, shuffle=True, seed=5)
    for b in range(3):
        out[f"next/{b}"] = next(nxt)
    meta: dict = {}
    with tempfile.TemporaryDirectory() as root:
        make_tree(root)
        plain = kimage.ImageDataGenerator(rescale=1 / 255.0, validation_split=0.5)
        for subset in (None, "training", "validation"):
            it = plain.flow_from_directory(root, target_size=(4, 5), batch_size=3, seed=2,
                                           subset=subset)
            meta[f"dir/{subset}"] = {"class_indices": it.class_indices,
                                     "filenames": it.filenames, "classes": it.classes.tolist(),
                                     "samples": it.samples, "len": len(it)}
            out[f"dir/{subset}/x0"], out[f"dir/{subset}/y0"] = it[0]
        for mode in ("binary", "sparse", "input", None):
            it = plain.flow_from_directory(root, target_size=(4, 5), batch_size=2,
                                           shuffle=False, classes=["dogs", "cats"],
                                           class_mode=mode, color_mode="grayscale")
            batch0 = it[0]
            if isinstance(batch0, tuple):
                out[f"dir_mode/{mode}/x"], out[f"dir_mode/{mode}/y"] = batch0
            else:
                out[f"dir_mode/{mode}/x"] = batch0
            meta[f"dir_mode/{mode}"] = {"filenames": it.filenames,
                                        "class_indices": it.class_indices}
    series = inp["series"]
    ts_cases = {"plain": dict(length=4, batch_size=3),
                "strided": dict(length=6, sampling_rate=2, stride=3, start_index=1,
                                end_index=17, reverse=True, batch_size=2)}
    for name, kw in ts_cases.items():
        gen = kseq.TimeseriesGenerator(series, series[:, 0] * 10, **kw)
        meta[f"ts/{name}/len"] = len(gen)
        for b in range(len(gen)):
            out[f"ts/{name}/{b}/x"], out[f"ts/{name}/{b}/y"] = gen[b]
        meta[f"ts/{name}/config"] = gen.get_config()
    np.random.seed(4)
    gen = kseq.TimeseriesGenerator(series, series[:, 1], length=3, shuffle=True, batch_size=5)
    out["ts/shuffle/x"], out["ts/shuffle/y"] = gen[0]
    out["sampling_table"] = kseq.make_sampling_table(12, sampling_factor=0.05)
    seq = [1, 2, 0, 3, 4, 5, 2, 0, 6]
    random.seed(9)
    meta["skipgrams/default"] = kseq.skipgrams(seq, 8, window_size=2, seed=21)
    random.seed(9)
    meta["skipgrams/categorical"] = kseq.skipgrams(seq, 8, window_size=1, negative_samples=0.5,
                                                   categorical=True, seed=5)
    random.seed(9)
    meta["skipgrams/table"] = kseq.skipgrams(seq, 8, window_size=3, shuffle=False,
                                             sampling_table=kseq.make_sampling_table(8, 0.2))
    here = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "preprocessing",
                        "fixtures")
    os.makedirs(here, exist_ok=True)
    def write_json(p: str) -> None:
        with open(p, "w") as f:
            json.dump(meta, f, indent=0, sort_keys=True)

    for name, write in (("tf_preprocessing_image.npz", lambda p: np.savez_compressed(p, **out)),
                        ("tf_preprocessing_image.json", write_json)):
        path = os.path.join(here, name)
        tmp = path + ".tmp" + (".npz" if name.endswith(".npz") else "")
        write(tmp)
        os.replace(tmp, path)
    print(len(out), "arrays,", len(meta), "json entries")


if __name__ == "__main__":
    main()
