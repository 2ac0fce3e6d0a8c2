"""Records TF 2.15's reference values for the second batch of `tf.keras.applications`
(InceptionV3, Xception, MobileNetV3, ConvNeXt, EfficientNetV2, InceptionResNetV2, RegNet,
ResNetRS, NASNet) for tests/keras/applications/test_app_parity_new.py. Run with TF 2.15:

    ~/anchor-venvs/tf215/bin/python tools/make_tf_applications_fixtures_2.py [KEY ...]

(with KEYs, only those parity entries / default names are recomputed and merged in).

Writes tests/keras/applications/fixtures/:
* tf_applications_2.json: for small configurations of each model, the layer names, classes
  and weight names/shapes, count_params and the prediction on a fixed input with the
  deterministic "planted" weights of tests/keras/applications/_planted_weights.py; for every
  model function at its defaults (weights=None), count_params, the number of layers, the
  model name and input shape.
* mobilenet_v3_small_075_min_notop.h5: TF's `save_weights` HDF5 file of a small MobileNetV3Small
  (random initialization with a fixed seed), and its output on the fixed input (in the JSON),
  to check that TF-written weight files load by layer name and by order.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "keras", "applications")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)
from _planted_weights import fixed_input  # noqa: E402
from make_tf_applications_fixtures import describe, plant  # noqa: E402

A = tf.keras.applications
OUT = os.path.join(TESTS, "fixtures", "tf_applications_2.json")
H5 = os.path.join(TESTS, "fixtures", "mobilenet_v3_small_075_min_notop.h5")

# key -> (constructor, kwargs, input scale (0: values in [-1, 1]; s: s * x + s), probe layer)
PARITY = {
    "inception_v3_top": (A.InceptionV3, dict(input_shape=(75, 75, 3), classes=10,
                                             classifier_activation=None), 0.0, None),
    "inception_v3_avg": (A.InceptionV3, dict(input_shape=(83, 91, 3), include_top=False,
                                             pooling="avg"), 0.0, None),
    "xception_top": (A.Xception, dict(input_shape=(71, 71, 3), classes=10,
                                      classifier_activation=None), 0.0, None),
    "xception_max": (A.Xception, dict(input_shape=(75, 80, 3), include_top=False,
                                      pooling="max"), 0.0, None),
    "mobilenet_v3_small_top": (A.MobileNetV3Small, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None), 127.5, "expanded_conv_4/Add"),
    "mobilenet_v3_small_min_avg": (A.MobileNetV3Small, dict(
        alpha=0.75, minimalistic=True, input_shape=(41, 33, 3), include_top=False,
        pooling="avg"), 127.5, None),
    "mobilenet_v3_large_top": (A.MobileNetV3Large, dict(
        alpha=0.75, input_shape=(32, 32, 3), classes=10, classifier_activation=None,
        include_preprocessing=False), 0.0, "expanded_conv_5/Add"),
    "mobilenet_v3_large_min_max": (A.MobileNetV3Large, dict(
        alpha=1.25, minimalistic=True, input_shape=(40, 40, 3), include_top=False,
        pooling="max"), 127.5, None),
    "convnext_tiny_top": (A.ConvNeXtTiny, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None), 127.5, "convnext_tiny_stage_1_block_0_identity"),
    "convnext_small_avg": (A.ConvNeXtSmall, dict(input_shape=(35, 40, 3), include_top=False,
        pooling="avg", include_preprocessing=False, model_name="cnx"), 0.0,
        "cnx_stage_2_block_0_identity"),
    "efficientnetv2b0_top": (A.EfficientNetV2B0, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None), 127.5, "block4a_project_bn"),
    "efficientnetv2s_avg": (A.EfficientNetV2S, dict(input_shape=(35, 41, 3),
        include_top=False, pooling="avg"), 127.5, "block4a_project_bn"),
    "efficientnetv2b3_max": (A.EfficientNetV2B3, dict(input_shape=(33, 33, 3),
        include_top=False, pooling="max", include_preprocessing=False), 0.0,
        "block4a_project_bn"),
    "inception_resnet_v2_top": (A.InceptionResNetV2, dict(input_shape=(75, 75, 3), classes=10,
        classifier_activation=None), 0.0, None),
    "regnetx002_top": (A.RegNetX002, dict(input_shape=(32, 32, 3), classes=10), 127.5, None),
    "regnety002_avg": (A.RegNetY002, dict(input_shape=(33, 40, 3), include_top=False,
        pooling="avg", include_preprocessing=False, model_name="rny"), 0.0, None),
    "regnety004_max": (A.RegNetY004, dict(input_shape=(32, 32, 3), include_top=False,
        pooling="max"), 127.5, None),
    "resnetrs50_top": (A.ResNetRS50, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None), 127.5, "BlockGroup3__block_0__output_act"),
    "resnetrs101_avg": (A.ResNetRS101, dict(input_shape=(35, 33, 3), include_top=False,
        pooling="avg", include_preprocessing=False), 0.0, "BlockGroup3__block_0__output_act"),
    "nasnet_mobile_top": (A.NASNetMobile, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None), 0.0, None),
    "nasnet_large_avg": (A.NASNetLarge, dict(input_shape=(35, 33, 3), include_top=False,
        pooling="avg"), 0.0, None),
}
DEFAULTS = ["InceptionV3", "Xception", "MobileNetV3Small", "MobileNetV3Large", "ConvNeXtTiny",
            "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge"]
DEFAULTS += ["InceptionResNetV2", "NASNetMobile", "NASNetLarge"]
DEFAULTS += [f"ResNetRS{d}" for d in (50, 101, 152, 200, 270, 350, 420)]
DEFAULTS += [f"RegNet{t}{n:03d}" for t in "XY"
             for n in (2, 4, 6, 8, 16, 32, 40, 64, 80, 120, 160, 320)]
DEFAULTS += ["EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
             "EfficientNetV2S", "EfficientNetV2M", "EfficientNetV2L"]


def record_parity(key: str) -> dict:
    fn, kwargs, scale, probe = PARITY[key]
    tf.keras.backend.clear_session()
    model = fn(weights=None, **kwargs)
    plant(model)
    x = fixed_input((2,) + tuple(model.input_shape[1:]))
    if scale:
        x = x * scale + scale
    y = model.predict(x, verbose=0)
    rec = {"function": fn.__name__, "kwargs": kwargs, "input_scale": scale, "name": model.name,
           "count_params": int(model.count_params()),
           "trainable_count": int(sum(np.prod(w.shape) for w in model.trainable_weights)),
           "layers": describe(model), "output": np.asarray(y, "float64").tolist()}
    if probe:
        inner = tf.keras.Model(model.input, model.get_layer(probe).output)
        rec["probe"] = {"layer": probe,
                        "output": np.asarray(inner.predict(x, verbose=0), "float64").tolist()}
    print(key, model.count_params(), flush=True)
    return rec


def record_default(name: str) -> dict:
    tf.keras.backend.clear_session()
    model = getattr(A, name)(weights=None)
    print(name, model.count_params(), flush=True)
    return {"count_params": int(model.count_params()), "layers": len(model.layers),
            "name": model.name, "input_shape": list(model.input_shape[1:])}


def record_h5() -> dict:
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(31)
    kwargs = dict(alpha=0.75, minimalistic=True, input_shape=(32, 32, 3), include_top=False,
                  pooling="avg")
    model = A.MobileNetV3Small(weights=None, **kwargs)
    model.save_weights(H5)
    x = fixed_input((2, 32, 32, 3)) * 127.5 + 127.5
    return {"function": "MobileNetV3Small", "kwargs": kwargs, "input_scale": 127.5,
            "output": np.asarray(model.predict(x, verbose=0), "float64").tolist()}


def main(keys: list[str]) -> None:
    out: dict = {"parity": {}, "defaults": {}}
    if keys and os.path.exists(OUT):
        with open(OUT, encoding="utf-8") as f:
            out = json.load(f)
    for key in PARITY:
        if not keys or key in keys:
            out["parity"][key] = record_parity(key)
    for name in DEFAULTS:
        if not keys or name in keys:
            out["defaults"][name] = record_default(name)
    if not keys or "h5" in keys:
        out["h5"] = record_h5()
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        json.dump(out, f)
    os.replace(OUT + ".tmp", OUT)


if __name__ == "__main__":
    main(sys.argv[1:])
