"""`UpSampling3D`: repeats the three spatial axes (both data formats), config and `.keras`
round trips, errors. Values against TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_repeats_each_axis():
    x = torch.randn(2, 2, 3, 2, 4)
    layer = layers.UpSampling3D((2, 1, 3))
    y = layer(x)
    assert tuple(y.shape) == (2, 4, 3, 6, 4)
    torch.testing.assert_close(y[:, ::2, :, ::3], x)
    torch.testing.assert_close(y[:, 1::2, :, 2::3], x)
    assert layer.compute_output_shape((None, 2, 3, None, 4)) == (None, 4, 3, None, 4)


def test_default_and_channels_first():
    assert layers.UpSampling3D().size == (2, 2, 2)
    x = torch.randn(1, 3, 2, 2, 2)
    y = layers.UpSampling3D(2, data_format="channels_first")(x)
    assert tuple(y.shape) == (1, 3, 4, 4, 4)
    torch.testing.assert_close(y[:, :, 1::2, ::2, 1::2], x)


def test_config_and_keras_round_trip(tmp_path):
    check_layer(layers.UpSampling3D, {"size": (1, 2, 3)}, (2, 2, 2, 2, 1), expected_output_shape=(2, 2, 4, 6, 1),
                tmp_dir=tmp_path)
    check_layer(layers.UpSampling3D, {"size": 2}, (2, 2, 2, 2, 1), expected_output_shape=(2, 4, 4, 4, 1),
                tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="size"):
        layers.UpSampling3D((2, 2))
    with pytest.raises(ValueError, match="size"):
        layers.UpSampling3D(0)
