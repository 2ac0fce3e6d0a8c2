"""`tf.keras.applications` exports the implemented models and family modules under TF 2.15's
names, and nothing TF does not have."""

from __future__ import annotations

import json

import torchestimator as tf

TF_API = "/work/shared/reference/tf_api_2.15.json"
IMPLEMENTED = {"DenseNet121", "DenseNet169", "DenseNet201", "MobileNet", "MobileNetV2",
               "ResNet50", "ResNet101", "ResNet152", "ResNet50V2", "ResNet101V2", "ResNet152V2",
               "VGG16", "VGG19"} | {f"EfficientNetB{i}" for i in range(8)}
# the second batch (tests/keras/applications/test_app_namespace_new.py checks them in detail)
NEW_MODULES = {
    "inception_v3": {"InceptionV3"}, "xception": {"Xception"},
    "mobilenet_v3": {"MobileNetV3Small", "MobileNetV3Large"},
    "convnext": {f"ConvNeXt{s}" for s in ("Tiny", "Small", "Base", "Large", "XLarge")},
    "efficientnet_v2": {f"EfficientNetV2{s}" for s in ("B0", "B1", "B2", "B3", "S", "M", "L")},
    "inception_resnet_v2": {"InceptionResNetV2"}, "nasnet": {"NASNetMobile", "NASNetLarge"},
    "regnet": {f"RegNet{t}{n:03d}" for t in "XY"
               for n in (2, 4, 6, 8, 16, 32, 40, 64, 80, 120, 160, 320)},
    "resnet_rs": {f"ResNetRS{d}" for d in (50, 101, 152, 200, 270, 350, 420)},
}
IMPLEMENTED |= set().union(*NEW_MODULES.values())
MODULES = {"densenet": {"DenseNet121", "DenseNet169", "DenseNet201"},
           "efficientnet": {f"EfficientNetB{i}" for i in range(8)},
           "imagenet_utils": set(), "mobilenet": {"MobileNet"}, "mobilenet_v2": {"MobileNetV2"},
           "resnet": {"ResNet50", "ResNet101", "ResNet152"}, "resnet50": {"ResNet50"},
           "resnet_v2": {"ResNet50V2", "ResNet101V2", "ResNet152V2"}, "vgg16": {"VGG16"},
           "vgg19": {"VGG19"}} | NEW_MODULES


def test_exports() -> None:
    A = tf.keras.applications
    assert set(A.__all__) == IMPLEMENTED | set(MODULES)
    for name in IMPLEMENTED:
        assert callable(getattr(A, name)) and getattr(A, name).__doc__
    for module, models in MODULES.items():
        mod = getattr(A, module)
        assert set(mod.__all__) == models | {"preprocess_input", "decode_predictions"}
        for model in models:
            assert getattr(mod, model) is getattr(A, model)
    assert not hasattr(A, "VGG11")


def test_names_are_tf_names() -> None:
    try:
        with open(TF_API, encoding="utf-8") as f:
            tf_names = set(json.load(f)["keras.applications"])
    except FileNotFoundError:
        tf_names = None
    if tf_names is not None:
        assert set(tf.keras.applications.__all__) <= tf_names
    assert "applications" in dir(tf.keras)
