"""The second batch of `tf.keras.applications` (InceptionV3, Xception, MobileNetV3, ConvNeXt,
EfficientNetV2, InceptionResNetV2, RegNet, ResNetRS, NASNet) under TF 2.15's names: the family modules,
their `preprocess_input` / `decode_predictions`, the ImageNet weight URLs and hashes, and the
function signatures."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

import torchestimator as tf

A = tf.keras.applications
TF_API = "/work/shared/reference/tf_api_2.15.json"
REGNETS = {f"RegNet{t}{n:03d}" for t in "XY"
           for n in (2, 4, 6, 8, 16, 32, 40, 64, 80, 120, 160, 320)}
MODULES = {
    "inception_v3": {"InceptionV3"}, "xception": {"Xception"},
    "mobilenet_v3": {"MobileNetV3Small", "MobileNetV3Large"},
    "convnext": {f"ConvNeXt{s}" for s in ("Tiny", "Small", "Base", "Large", "XLarge")},
    "efficientnet_v2": {f"EfficientNetV2{s}" for s in ("B0", "B1", "B2", "B3", "S", "M", "L")},
    "inception_resnet_v2": {"InceptionResNetV2"}, "regnet": REGNETS,
    "resnet_rs": {f"ResNetRS{d}" for d in (50, 101, 152, 200, 270, 350, 420)},
    "nasnet": {"NASNetMobile", "NASNetLarge"},
}
# preprocess_input's mode per module (None: the identity, the model preprocesses itself)
MODES = {"inception_v3": "tf", "xception": "tf", "inception_resnet_v2": "tf",
         "nasnet": "tf", "mobilenet_v3": None, "convnext": None, "efficientnet_v2": None, "regnet": None,
         "resnet_rs": None}
COMMON = ["include_top", "weights", "input_tensor", "input_shape", "pooling", "classes",
          "classifier_activation"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_exports(module: str) -> None:
    mod = getattr(A, module)
    assert set(mod.__all__) == MODULES[module] | {"preprocess_input", "decode_predictions"}
    for name in MODULES[module]:
        fn = getattr(mod, name)
        assert fn is getattr(A, name) and fn.__doc__ and name in A.__all__
        params = inspect.signature(fn).parameters
        assert set(COMMON) <= set(params), name
        assert params["weights"].default == "imagenet" and params["classes"].default == 1000
    assert module in A.__all__


def test_names_are_tf_names() -> None:
    try:
        with open(TF_API, encoding="utf-8") as f:
            tf_names = set(json.load(f)["keras.applications"])
    except FileNotFoundError:
        pytest.skip(f"{TF_API} not present")
    new = set(MODULES).union(*MODULES.values())
    assert new <= tf_names


def test_model_specific_arguments() -> None:
    for fn in (A.MobileNetV3Small, A.MobileNetV3Large):
        params = inspect.signature(fn).parameters
        assert list(params)[:3] == ["input_shape", "alpha", "minimalistic"]
        assert params["include_preprocessing"].default is True
        assert params["dropout_rate"].default == 0.2
    for fn in (A.ConvNeXtTiny, A.RegNetX002, A.EfficientNetV2B0, A.ResNetRS50):
        assert inspect.signature(fn).parameters["include_preprocessing"].default is True
    assert inspect.signature(A.ConvNeXtBase).parameters["model_name"].default == "convnext_base"
    assert inspect.signature(A.RegNetY016).parameters["model_name"].default == "regnety016"


@pytest.mark.parametrize("module", sorted(MODES))
def test_preprocess_input(module: str) -> None:
    mod = getattr(A, module)
    x = np.random.RandomState(0).uniform(0, 255, (2, 4, 5, 3)).astype("float32")
    expected = x / 127.5 - 1.0 if MODES[module] == "tf" else x.copy()
    np.testing.assert_allclose(mod.preprocess_input(x.copy()), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="1000"):
        mod.decode_predictions(np.zeros((2, 10)))


def test_imagenet_urls_and_hashes() -> None:
    """Keras 2.15's weight file names, URLs and hashes (spot checks)."""
    from torchestimator.keras.applications import (
        _convnext,
        _efficientnet_v2,
        _inception_v3,
        _mobilenet_v3,
        _regnet,
        _resnet_rs,
        _xception,
    )

    assert _inception_v3.WEIGHTS_PATH.endswith(
        "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels.h5")
    assert _xception._HASHES == ("0a58e3b7378bc2990ea3b43d5981f1f6",
                                 "b0042744bf5b25fce3cb969f33bebb97")
    assert _mobilenet_v3.WEIGHTS_HASHES["small_224_1.0_float"][0] == (
        "8768d4c2e7dee89b9d02b2d03d65d862")
    assert _convnext.WEIGHTS_HASHES["convnext_tiny"][1].startswith("d547c096")
    assert _efficientnet_v2.WEIGHTS_HASHES["-s"][0] == "e1d88a8495beba45748fedd0cecbe016"
    assert len(_regnet.WEIGHTS_HASHES) == 24
    assert _regnet.WEIGHTS_HASHES["y320"][0].startswith("b05e173e")
    assert _resnet_rs.WEIGHT_HASHES["resnet-rs-50-i160_notop.h5"] == (
        "90daa68cd26c95aa6c5d25451e095529")


@pytest.mark.parametrize("fn, kwargs, match", [
    ("InceptionV3", {"weights": "imagenet", "classes": 10}, "classes"),
    ("Xception", {"weights": "no/such/file.h5"}, "weights"),
    ("MobileNetV3Small", {"weights": "imagenet", "alpha": 0.5}, "alpha"),
    ("MobileNetV3Large", {"weights": None, "input_shape": (16, 16, 3)}, "at least 32"),
    ("ConvNeXtTiny", {"weights": None, "input_shape": (16, 16, 3), "include_top": False},
     "at least 32"),
    ("ResNetRS50", {"weights": "imagenet-i224"}, "imagenet-i160"),
    ("RegNetX002", {"weights": None, "include_top": True, "input_shape": (None, None, 3)},
     "static"),
])
def test_argument_errors(fn: str, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        getattr(A, fn)(**kwargs)


def test_regnet_top_returns_logits() -> None:
    """As in Keras 2.15, RegNet's top Dense layer has no activation (named
    '{uid}head_dense')."""
    tf.keras.backend.clear_session()
    model = A.RegNetX002(weights=None, input_shape=(32, 32, 3), classes=5)
    assert model.layers[-1].name == "1head_dense"
    assert model.layers[-1].get_config()["activation"] == "linear"
