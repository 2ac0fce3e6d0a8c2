"""`tf.keras.applications` paths no default-run test reached: the family modules'
`decode_predictions` (densenet, efficientnet, mobilenet, vgg19) offline, ConvNeXt's
`StochasticDepth` / `LayerScale` layers and their configs, and (slow) the large models built at
the smallest input TF 2.15 allows, against Keras 2.15's parameter counts."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.applications import _imagenet_utils
from torchestimator.keras.applications._convnext import LayerScale, StochasticDepth

A = tf.keras.applications


@pytest.fixture
def cached_class_index(tmp_path, monkeypatch):
    """A class index already in the Keras cache (`$KERAS_HOME/models`), as a user without
    internet access places it: decode_predictions reads it without downloading (the URL points
    nowhere)."""
    models = tmp_path / "models"
    models.mkdir()
    path = models / "imagenet_class_index.json"
    path.write_text(json.dumps({str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX", None)
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX_PATH",
                        "http://127.0.0.1:9/imagenet_class_index.json")
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX_HASH",
                        hashlib.md5(path.read_bytes()).hexdigest())
    return path


@pytest.mark.parametrize("module", ["densenet", "efficientnet", "mobilenet", "vgg19"])
def test_decode_predictions_from_the_cached_index(cached_class_index, module) -> None:
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [7, 3, 500]] = [0.6, 0.3, 0.1]
    preds[1, [999, 0]] = [0.8, 0.2]
    decode = getattr(A, module).decode_predictions
    decoded = decode(preds, top=3)
    assert [[(c, d) for c, d, _ in row] for row in decoded] == [
        [("n00000007", "class_7"), ("n00000003", "class_3"), ("n00000500", "class_500")],
        [("n00000999", "class_999"), ("n00000000", "class_0"), decoded[1][2][:2]]]
    np.testing.assert_allclose([s for *_, s in decoded[0]], [0.6, 0.3, 0.1], rtol=1e-6)
    assert len(decode(torch.tensor(preds))[0]) == 5  # top=5 by default, tensors accepted
    with pytest.raises(ValueError, match=r"Found array with shape: \(2, 10\)"):
        decode(np.zeros((2, 10)))


def test_decode_predictions_offline_without_the_index_says_where_to_put_it(tmp_path,
                                                                         monkeypatch) -> None:
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX", None)
    monkeypatch.setattr(_imagenet_utils, "CLASS_INDEX_PATH",
                        "http://127.0.0.1:9/imagenet_class_index.json")
    with pytest.raises(Exception, match=r"http://127.0.0.1:9/imagenet_class_index.json[\s\S]*"
                                        r"place it at .*models.imagenet_class_index.json"):
        A.vgg19.decode_predictions(np.eye(1000, dtype=np.float32)[:1])


def test_stochastic_depth_drops_whole_samples_only_when_training() -> None:
    torch.manual_seed(0)
    layer = StochasticDepth(0.25)
    x = torch.ones(4000, 3, 2)
    y = layer(x, training=True)
    per_sample = y.reshape(4000, -1)
    # Each sample is all dropped (0) or all kept and scaled by 1 / keep_prob.
    np.testing.assert_allclose(torch.unique(per_sample).numpy(), [0.0, 1 / 0.75], rtol=1e-6)
    assert bool((per_sample == per_sample[:, :1]).all())
    assert abs(float((per_sample[:, 0] == 0).float().mean()) - 0.25) < 0.03
    assert abs(float(y.mean()) - 1.0) < 0.05  # the expectation is kept
    assert layer(x, training=False) is x
    assert layer(x) is x
    config = layer.get_config()
    assert config["drop_path_rate"] == 0.25
    clone = StochasticDepth.from_config(config)
    assert clone.drop_path_rate == 0.25 and clone.name == layer.name


def test_layer_scale_config_and_convnext_round_trip() -> None:
    layer = LayerScale(0.5, 4)
    out = layer(torch.ones(2, 3, 4))
    assert [tuple(w.shape) for w in layer.weights] == [(4,)]
    np.testing.assert_allclose(np.asarray(out), np.full((2, 3, 4), 0.5))
    config = layer.get_config()
    assert (config["init_values"], config["projection_dim"]) == (0.5, 4)
    assert LayerScale.from_config(config).projection_dim == 4

    tf.keras.backend.clear_session()
    model = A.ConvNeXtTiny(weights=None, include_top=False, input_shape=(32, 32, 3))
    # Keras 2.15: ConvNeXtTiny has 28,589,128 parameters with its 768 x 1000 top.
    assert model.count_params() == 28_589_128 - (768 * 1000 + 1000)
    scales = [layer for layer in model.layers if isinstance(layer, LayerScale)]
    assert len(scales) == 3 + 3 + 9 + 3
    assert scales[0].get_config()["init_values"] == 1e-6
    rebuilt = tf.keras.Model.from_config(model.get_config())
    assert rebuilt.count_params() == model.count_params()
    assert [type(layer).__name__ for layer in rebuilt.layers] == [
        type(layer).__name__ for layer in model.layers]


# Keras 2.15's parameter counts without the top (with it: ResNet101 44,707,176, ResNet152
# 60,419,944, ResNet101V2 44,675,560, ResNet152V2 60,380,648, VGG19 143,667,240, DenseNet169
# 14,307,880, InceptionResNetV2 55,873,736, NASNetLarge 88,949,818, less a features x 1000 + 1000
# classifier, VGG19's three dense layers), the width of the last feature map, and the smallest
# input TF accepts without the top.
LARGE = [("ResNet101", 42_658_176, 2048, 32), ("ResNet152", 58_370_944, 2048, 32),
         ("ResNet101V2", 42_626_560, 2048, 32), ("ResNet152V2", 58_331_648, 2048, 32),
         ("VGG19", 20_024_384, 512, 32), ("DenseNet169", 12_642_880, 1664, 32),
         ("InceptionResNetV2", 54_336_736, 1536, 75), ("NASNetLarge", 84_916_818, 4032, 32)]


@pytest.mark.slow  # about 1 s each, 8 s together on a 2-core machine
@pytest.mark.parametrize(("name", "params", "features", "min_size"), LARGE)
def test_large_models_at_the_smallest_input(name, params, features, min_size) -> None:
    tf.keras.backend.clear_session()
    fn = getattr(A, name)
    model = fn(weights=None, include_top=False, input_shape=(min_size, min_size, 3),
               pooling="avg")
    assert model.count_params() == params
    assert model.output_shape == (None, features)
    out = model.predict(np.random.RandomState(0).rand(1, min_size, min_size, 3).astype("float32"),
                        verbose=0)
    assert out.shape == (1, features) and np.isfinite(out).all()
    with pytest.raises(ValueError, match=f"at least {min_size}x{min_size}"):
        fn(weights=None, include_top=False, input_shape=(min_size - 1, min_size - 1, 3))


def test_inception_resnet_v2_custom_scale_layer() -> None:
    from torchestimator.keras.applications._inception_resnet_v2 import CustomScaleLayer

    layer = CustomScaleLayer(0.17)
    a, b = torch.full((2, 3), 1.0), torch.full((2, 3), 2.0)
    np.testing.assert_allclose(np.asarray(layer([a, b])), np.full((2, 3), 1.34), rtol=1e-6)
    config = layer.get_config()
    assert config["scale"] == 0.17
    assert CustomScaleLayer.from_config(config).scale == 0.17


@pytest.mark.slow  # 3 to 8 s on a 2-core machine
def test_inception_resnet_v2_round_trips_through_its_config() -> None:
    tf.keras.backend.clear_session()
    model = A.InceptionResNetV2(weights=None, include_top=False, input_shape=(75, 75, 3))
    scales = [layer for layer in model.layers if type(layer).__name__ == "CustomScaleLayer"]
    # Keras 2.15: 10 block35 (scale 0.17), 20 block17 (0.1), 10 block8 (0.2, the last 1.0).
    assert len(scales) == 40
    assert sorted({layer.scale for layer in scales}) == [0.1, 0.17, 0.2, 1.0]
    rebuilt = tf.keras.Model.from_config(model.get_config())
    assert rebuilt.count_params() == model.count_params() == 54_336_736
    x = np.random.RandomState(1).rand(1, 75, 75, 3).astype("float32")
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_allclose(rebuilt.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-5)
