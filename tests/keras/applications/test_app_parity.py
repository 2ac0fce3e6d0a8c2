"""Architecture parity with TF 2.15's `tf.keras.applications`: the same layer names, classes,
weight names/shapes and parameter counts, and the same predictions once the same
deterministic weights are set (fixtures: tools/make_tf_applications_fixtures.py)."""

from __future__ import annotations

import numpy as np
import pytest
from _app_fixtures import build, model_input, plant, tf_values

FAST = ["mobilenet_v2_top", "mobilenet_v2_notop", "mobilenet_v2_avg_odd", "mobilenet_top",
        "mobilenet_max", "resnet50_top", "resnet50v2_top", "densenet121_top",
        "efficientnetb0_top", "efficientnetb3_avg"]
SLOW = ["resnet101_avg", "resnet152_avg", "resnet101v2_max", "resnet152v2_avg", "vgg16_top",
        "vgg19_avg", "densenet169_avg", "densenet201_max"]

# Models whose `model.layers` order is Keras' too. Keras lists a Functional model's layers by
# depth; the engine lists them in depth-first order, which differs for residual branches.
SAME_ORDER = ["mobilenet_v2_top", "mobilenet_v2_notop", "mobilenet_v2_avg_odd", "mobilenet_top",
              "mobilenet_max", "vgg16_top", "vgg19_avg", "densenet121_top", "densenet169_avg",
              "densenet201_max", "efficientnetb0_top", "efficientnetb3_avg"]


def _check(key: str) -> None:
    spec = tf_values()["parity"][key]
    model = build(key)
    assert model.name == spec["name"]
    ours = {layer.name: (type(layer).__name__, [w.name for w in layer.weights])
            for layer in model.layers}
    assert len(ours) == len(model.layers) == len(spec["layers"])
    assert ours == {name: (cls, [w for w, _ in weights]) for name, cls, weights in spec["layers"]}
    if key in SAME_ORDER:
        assert [layer.name for layer in model.layers] == [row[0] for row in spec["layers"]]
    assert model.count_params() == spec["count_params"]
    assert sum(int(np.prod(w.shape)) for w in model.trainable_weights) == spec["trainable_count"]
    plant(model, key)
    y = np.asarray(model.predict(model_input(model, key), verbose=0))
    expected = np.asarray(spec["output"])
    assert y.shape == expected.shape
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4 * scale)
    if "probe" in spec:  # an inner layer's output, where the final one barely varies
        import torchestimator as tf

        inner = tf.keras.Model(model.inputs, model.get_layer(spec["probe"]["layer"]).output)
        expected = np.asarray(spec["probe"]["output"])
        assert float(np.abs(expected[0] - expected[1]).max()) > 0.1
        np.testing.assert_allclose(inner.predict(model_input(model, key), verbose=0), expected,
                                   rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(expected).max())))


@pytest.mark.parametrize("key", FAST)
def test_parity(key: str) -> None:
    _check(key)


@pytest.mark.slow
@pytest.mark.parametrize("key", SLOW)
def test_parity_large(key: str) -> None:
    _check(key)


def _defaults(name: str) -> None:
    import torchestimator as tf

    spec = tf_values()["defaults"][name]
    tf.keras.backend.clear_session()
    model = getattr(tf.keras.applications, name)(weights=None)
    assert model.name == spec["name"]
    assert model.count_params() == spec["count_params"]
    assert len(model.layers) == spec["layers"]
    assert list(model.input_shape[1:]) == spec["input_shape"]


@pytest.mark.parametrize("name", ["MobileNetV2", "MobileNet", "ResNet50", "ResNet50V2",
                                  "DenseNet121", "EfficientNetB0", "EfficientNetB3"])
def test_default_configuration(name: str) -> None:
    _defaults(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ResNet101", "ResNet152", "ResNet101V2", "ResNet152V2",
                                  "VGG16", "VGG19", "DenseNet169", "DenseNet201", "EfficientNetB1", "EfficientNetB2",
                                  "EfficientNetB4", "EfficientNetB5", "EfficientNetB6",
                                  "EfficientNetB7"])
def test_default_configuration_large(name: str) -> None:
    _defaults(name)


def test_resnet_layer_order_is_keras() -> None:
    model = build("resnet50_top")
    spec = tf_values()["parity"]["resnet50_top"]
    assert [layer.name for layer in model.layers] == [row[0] for row in spec["layers"]]
