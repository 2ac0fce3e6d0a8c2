"""Records TF 2.15's `tf.keras.applications` reference values for
tests/keras/applications (run with TF 2.15: ~/anchor-venvs/tf215/bin/python
tools/make_tf_applications_fixtures.py).

Writes tests/keras/applications/fixtures/:
* tf_applications.json: for small configurations of each implemented model, the layer names,
  classes and weight names/shapes, count_params, and the prediction on a fixed input with the
  deterministic "planted" weights of tests/keras/applications/_planted_weights.py (so the
  tests need no weight file); for each model function at its defaults, count_params and the
  number of layers; preprocess_input / decode_predictions outputs.
* mobilenet_v2_035_96_c10.h5: a Keras HDF5 weight file (model.save_weights) of
  MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), classes=10) with the planted weights.
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
from _planted_weights import fixed_input, planted_values  # noqa: E402

A = tf.keras.applications

# name -> (constructor, kwargs, input shape)
PARITY = {
    "mobilenet_v2_top": (A.MobileNetV2, dict(alpha=0.35, input_shape=(96, 96, 3), classes=10)),
    "mobilenet_v2_notop": (A.MobileNetV2, dict(alpha=0.35, input_shape=(96, 96, 3),
                                                include_top=False)),
    "mobilenet_v2_avg_odd": (A.MobileNetV2, dict(alpha=0.5, input_shape=(37, 45, 3),
                                                  include_top=False, pooling="avg")),
    "mobilenet_top": (A.MobileNet, dict(alpha=0.25, input_shape=(64, 64, 3), classes=10,
        classifier_activation=None)),
    "mobilenet_max": (A.MobileNet, dict(alpha=0.25, depth_multiplier=2, input_shape=(33, 47, 3),
                                         include_top=False, pooling="max")),
    "resnet50_top": (A.ResNet50, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None)),
    "resnet101_avg": (A.ResNet101, dict(input_shape=(32, 32, 3), include_top=False,
                                         pooling="avg")),
    "resnet152_avg": (A.ResNet152, dict(input_shape=(32, 32, 3), include_top=False,
                                         pooling="avg")),
    "resnet50v2_top": (A.ResNet50V2, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None)),
    "resnet101v2_max": (A.ResNet101V2, dict(input_shape=(32, 32, 3), include_top=False,
                                             pooling="max")),
    "resnet152v2_avg": (A.ResNet152V2, dict(input_shape=(32, 32, 3), include_top=False,
                                             pooling="avg")),
    "vgg16_top": (A.VGG16, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None)),
    "vgg19_avg": (A.VGG19, dict(input_shape=(40, 40, 3), include_top=False, pooling="avg")),
    "densenet121_top": (A.DenseNet121, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None)),
    "densenet169_avg": (A.DenseNet169, dict(input_shape=(32, 32, 3), include_top=False,
                                             pooling="avg")),
    "densenet201_max": (A.DenseNet201, dict(input_shape=(32, 32, 3), include_top=False,
                                             pooling="max")),
    "efficientnetb0_top": (A.EfficientNetB0, dict(input_shape=(32, 32, 3), classes=10,
        classifier_activation=None)),
    "efficientnetb3_avg": (A.EfficientNetB3, dict(input_shape=(35, 41, 3), include_top=False,
                                                   pooling="avg")),
}
DEFAULTS = ["MobileNetV2", "MobileNet", "ResNet50", "ResNet101", "ResNet152", "ResNet50V2",
            "ResNet101V2", "ResNet152V2", "VGG16", "VGG19", "DenseNet121", "DenseNet169",
            "DenseNet201", "EfficientNetB0", "EfficientNetB1", "EfficientNetB2",
            "EfficientNetB3", "EfficientNetB4", "EfficientNetB5", "EfficientNetB6",
            "EfficientNetB7"]


def plant(model: tf.keras.Model) -> None:
    for layer in model.layers:
        if layer.weights:
            spec = [(w.name, tuple(w.shape)) for w in layer.weights]
            layer.set_weights(planted_values(layer.name, spec))


def describe(model: tf.keras.Model) -> list:
    return [[layer.name, type(layer).__name__,
             [[w.name, list(w.shape)] for w in layer.weights]] for layer in model.layers]


def main() -> None:
    out: dict = {"parity": {}, "defaults": {}}
    for key, (fn, kwargs) in PARITY.items():
        tf.keras.backend.clear_session()
        model = fn(weights=None, **kwargs)
        plant(model)
        x = fixed_input((2,) + tuple(model.input_shape[1:]))
        scale = 127.5 if key.startswith("efficientnet") else 0.0  # pixels in [0, 255]
        if scale:
            x = x * scale + scale
        y = model.predict(x, verbose=0)
        out["parity"][key] = {
            "function": fn.__name__, "kwargs": kwargs, "input_scale": scale, "name": model.name,
            "count_params": int(model.count_params()),
            "trainable_count": int(sum(np.prod(w.shape) for w in model.trainable_weights)),
            "layers": describe(model), "output": np.asarray(y, "float64").tolist(),
        }
        if key.startswith("efficientnet"):  # its planted output barely depends on the input:
            probe = tf.keras.Model(model.input, model.get_layer("block2b_add").output)
            out["parity"][key]["probe"] = {
                "layer": "block2b_add",
                "output": np.asarray(probe.predict(x, verbose=0), "float64").tolist()}
        if key == "mobilenet_v2_top":
            model.save_weights(os.path.join(TESTS, "fixtures", "mobilenet_v2_035_96_c10.h5"))
        print(key, model.count_params(), flush=True)
    for name in DEFAULTS:
        tf.keras.backend.clear_session()
        model = getattr(A, name)(weights=None)
        out["defaults"][name] = {"count_params": int(model.count_params()),
                                 "layers": len(model.layers), "name": model.name,
                                 "input_shape": list(model.input_shape[1:])}
        print(name, model.count_params(), flush=True)
    # preprocess_input
    rng = np.random.RandomState(3)
    img = rng.uniform(0, 255, (2, 4, 5, 3)).astype("float32")
    img3 = rng.uniform(0, 255, (3, 4, 5)).astype("float32")
    pre = {"img": img.tolist(), "img3_cf": img3.tolist()}
    for mode in ("caffe", "tf", "torch"):
        pre[f"{mode}_last"] = A.imagenet_utils.preprocess_input(img.copy(), mode=mode).tolist()
        pre[f"{mode}_first3"] = A.imagenet_utils.preprocess_input(
            img3.copy(), mode=mode, data_format="channels_first").tolist()
        pre[f"{mode}_tensor"] = A.imagenet_utils.preprocess_input(
            tf.constant(img), mode=mode).numpy().tolist()
    pre["uint8_caffe"] = A.imagenet_utils.preprocess_input(
        img.astype("uint8"), mode="caffe").tolist()
    out["preprocess"] = pre
    # decode_predictions with a small class index (TF's is fetched from the internet)
    from keras.src.applications import imagenet_utils as tf_imagenet_utils
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    tf_imagenet_utils.CLASS_INDEX = index
    preds = np.random.RandomState(5).uniform(0, 1, (2, 1000)).astype("float32")
    decoded = A.imagenet_utils.decode_predictions(preds, top=3)
    out["decode"] = {"preds": preds.tolist(),
                     "top3": [[[c, d, float(s)] for c, d, s in row] for row in decoded]}
    path = os.path.join(TESTS, "fixtures", "tf_applications.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
