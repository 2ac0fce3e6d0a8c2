"""Parity with TF 2.15 for the second batch of `tf.keras.applications` (InceptionV3, Xception,
MobileNetV3, ConvNeXt, EfficientNetV2, InceptionResNetV2, RegNet, ResNetRS, NASNet): the same
layer names, classes, order, weight names/shapes and parameter counts as TF's models, the same
predictions once the same deterministic weights are set, and TF-written weight files load
(fixtures: tools/make_tf_applications_fixtures_2.py)."""

from __future__ import annotations

import functools
import json
import os

import numpy as np
import pytest
from _planted_weights import fixed_input, planted_values

import torchestimator as tf

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
# TF's operator layers (`x + 3.0` in a functional model) are TFOpLambda layers named after the
# TF op ('tf.__operators__.add'), as ours.
OP_CLASSES: dict[str, str] = {}  # ours are TF's classes under TF's names now


@functools.lru_cache(maxsize=1)
def tf_values() -> dict:
    """tools/make_tf_applications_fixtures_2.py's recording (TF 2.15)."""
    with open(os.path.join(FIXTURES, "tf_applications_2.json"), encoding="utf-8") as f:
        return json.load(f)


def _kwargs(spec: dict) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in spec["kwargs"].items()}


def _layer_rows(model) -> list:
    return [[layer.name, type(layer).__name__, [w.name for w in layer.weights]]
            for layer in model.layers]


def _same_layers(model, spec: dict) -> None:
    ours = _layer_rows(model)
    theirs = [[name, cls, [w for w, _ in weights]] for name, cls, weights in spec["layers"]]
    assert len(ours) == len(theirs)
    for mine, tfs in zip(ours, theirs):
        if tfs[1] in OP_CLASSES:
            assert mine[1] == OP_CLASSES[tfs[1]], (mine, tfs)
        else:
            assert mine == tfs


def _check(key: str) -> None:
    spec = tf_values()["parity"][key]
    tf.keras.backend.clear_session()
    model = getattr(tf.keras.applications, spec["function"])(weights=None, **_kwargs(spec))
    assert model.name == spec["name"]
    _same_layers(model, spec)
    assert model.count_params() == spec["count_params"]
    assert sum(int(np.prod(w.shape)) for w in model.trainable_weights) == spec["trainable_count"]
    for layer, (name, _, weights) in zip(model.layers, spec["layers"]):  # same order
        assert [tuple(w.shape) for w in layer.weights] == [tuple(s) for _, s in weights], name
        if weights:
            layer.set_weights(planted_values(name, [(w, tuple(s)) for w, s in weights]))
    x = fixed_input((2,) + tuple(model.input_shape[1:]))
    if spec["input_scale"]:
        x = x * spec["input_scale"] + spec["input_scale"]
    y = np.asarray(model.predict(x, verbose=0))
    expected = np.asarray(spec["output"])
    assert y.shape == expected.shape
    if "probe" not in spec:
        assert float(np.abs(expected[0] - expected[1]).max()) > 1e-3  # the input matters
    np.testing.assert_allclose(y, expected, rtol=1e-4,
                               atol=1e-4 * max(1.0, float(np.abs(expected).max())))
    if "probe" in spec:  # an inner layer's output, where the final one barely varies
        inner = tf.keras.Model(model.inputs, model.get_layer(spec["probe"]["layer"]).output)
        expected = np.asarray(spec["probe"]["output"])
        assert float(np.abs(expected[0] - expected[1]).max()) > 0.1
        np.testing.assert_allclose(inner.predict(x, verbose=0), expected, rtol=1e-4,
                                   atol=1e-4 * max(1.0, float(np.abs(expected).max())))


FAST = ["inception_v3_top", "xception_top", "mobilenet_v3_small_top", "mobilenet_v3_small_min_avg",
        "mobilenet_v3_large_top", "mobilenet_v3_large_min_max", "convnext_tiny_top", "efficientnetv2b0_top",
        "regnetx002_top", "resnetrs50_top", "nasnet_mobile_top"]
SLOW = ["inception_v3_avg", "xception_max", "convnext_small_avg", "efficientnetv2s_avg",
        "efficientnetv2b3_max", "inception_resnet_v2_top", "regnety002_avg", "regnety004_max",
        "resnetrs101_avg", "nasnet_large_avg"]


@pytest.mark.parametrize("key", FAST)
def test_parity(key: str) -> None:
    _check(key)


@pytest.mark.slow
@pytest.mark.parametrize("key", SLOW)
def test_parity_large(key: str) -> None:
    _check(key)


def _defaults(name: str) -> None:
    spec = tf_values()["defaults"][name]
    tf.keras.backend.clear_session()
    model = getattr(tf.keras.applications, name)(weights=None)
    assert model.name == spec["name"]
    assert model.count_params() == spec["count_params"]
    assert len(model.layers) == spec["layers"]
    assert list(model.input_shape[1:]) == spec["input_shape"]


DEFAULTS_FAST = ["InceptionV3", "Xception", "MobileNetV3Small", "MobileNetV3Large",
                 "EfficientNetV2B0", "RegNetX002", "RegNetY002", "NASNetMobile"]
DEFAULTS_SLOW = ["ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge",
                 "ConvNeXtXLarge", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
                 "EfficientNetV2S", "EfficientNetV2M", "EfficientNetV2L", "InceptionResNetV2", "NASNetLarge"]
DEFAULTS_SLOW += [f"RegNet{t}{n:03d}" for t in "XY"
                  for n in (4, 6, 8, 16, 32, 40, 64, 80, 120, 160, 320)]
DEFAULTS_SLOW += [f"ResNetRS{d}" for d in (50, 101, 152, 200, 270, 350, 420)]


@pytest.mark.parametrize("name", DEFAULTS_FAST)
def test_default_configuration(name: str) -> None:
    _defaults(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", DEFAULTS_SLOW)
def test_default_configuration_large(name: str) -> None:
    _defaults(name)


def test_every_recorded_configuration_is_tested() -> None:
    assert set(tf_values()["parity"]) == set(FAST) | set(SLOW)
    assert set(tf_values()["defaults"]) == set(DEFAULTS_FAST) | set(DEFAULTS_SLOW)


H5 = os.path.join(FIXTURES, "mobilenet_v3_small_075_min_notop.h5")


@pytest.mark.parametrize("by_name", [False, True])
def test_tf_weight_file_loads(by_name: bool) -> None:
    """A weight file written by TF's `save_weights` (TF's random initialization) loads, by
    layer order (`weights=<path>`) or by layer name, and gives TF's output."""
    spec = tf_values()["h5"]
    tf.keras.backend.clear_session()
    fn = getattr(tf.keras.applications, spec["function"])
    if by_name:
        model = fn(weights=None, **_kwargs(spec))
        model.load_weights(H5, by_name=True)
    else:
        model = fn(weights=H5, **_kwargs(spec))
    x = fixed_input((2,) + tuple(model.input_shape[1:])) * spec["input_scale"] + spec[
        "input_scale"]
    np.testing.assert_allclose(model.predict(x, verbose=0), np.asarray(spec["output"]),
                               rtol=1e-4, atol=1e-5)
