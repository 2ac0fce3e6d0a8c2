"""`SpatialDropout3D`: identity in inference; in training whole 3D feature maps dropped (one
mask per sample and channel, both data formats), kept maps scaled by 1 / (1 - rate); config and
`.keras` round trips."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_inference_is_identity():
    x = torch.randn(2, 2, 3, 2, 4)
    assert layers.SpatialDropout3D(0.5)(x) is x


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_drops_whole_feature_maps(data_format):
    x = torch.rand(8, 3, 3, 3, 16) + 0.5
    if data_format == "channels_first":
        x = x.permute(0, 4, 1, 2, 3).contiguous()
    y = layers.SpatialDropout3D(0.5, data_format=data_format, seed=2)(x, training=True)
    maps = y if data_format == "channels_first" else y.permute(0, 4, 1, 2, 3)
    src = x if data_format == "channels_first" else x.permute(0, 4, 1, 2, 3)
    flat = maps.reshape(8, 16, -1)
    zero = (flat == 0).all(dim=-1)
    kept = torch.isclose(flat, src.reshape(8, 16, -1) * 2).all(dim=-1)
    assert bool((zero | kept).all())
    assert 0 < zero.sum().item() < 8 * 16


def test_rate_statistics():
    x = torch.ones(400, 1, 1, 1, 50)
    y = layers.SpatialDropout3D(0.3)(x, training=True)
    assert (y == 0).float().mean().item() == pytest.approx(0.3, abs=0.02)


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.SpatialDropout3D(0.2, data_format="channels_first")
    config = layer.get_config()
    assert config["data_format"] == "channels_first" and "noise_shape" not in config
    check_layer(layers.SpatialDropout3D, {"rate": 0.2, "data_format": "channels_first"}, (2, 3, 2, 2, 2),
                expected_output_shape=(2, 3, 2, 2, 2), tmp_dir=tmp_path)
    check_layer(layers.SpatialDropout3D, {"rate": 0.2}, (2, 3, 2, 2, 2), tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="data_format"):
        layers.SpatialDropout3D(0.2, data_format="channels_middle")
    with pytest.raises(ValueError, match="rate"):
        layers.SpatialDropout3D(-0.1)
