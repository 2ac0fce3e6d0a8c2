"""`Cropping3D`: crops the three spatial axes (both data formats), argument forms, config and
`.keras` round trips, errors. Values against TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_crops_each_axis():
    x = torch.randn(2, 5, 6, 7, 3)
    y = layers.Cropping3D(((1, 0), (2, 1), (0, 3)))(x)
    torch.testing.assert_close(y, x[:, 1:5, 2:5, 0:4])
    assert layers.Cropping3D(((1, 0), (2, 1), (0, 3))).compute_output_shape((None, 5, 6, 7, 3)) == (None, 4, 3, 4, 3)


def test_argument_forms_and_channels_first():
    assert layers.Cropping3D().cropping == ((1, 1), (1, 1), (1, 1))
    assert layers.Cropping3D(2).cropping == ((2, 2), (2, 2), (2, 2))
    assert layers.Cropping3D((1, 2, 0)).cropping == ((1, 1), (2, 2), (0, 0))
    x = torch.randn(1, 2, 4, 5, 6)
    y = layers.Cropping3D(1, data_format="channels_first")(x)
    torch.testing.assert_close(y, x[:, :, 1:3, 1:4, 1:5])


def test_config_and_keras_round_trip(tmp_path):
    check_layer(layers.Cropping3D, {"cropping": ((1, 0), (0, 1), (1, 1))}, (2, 4, 4, 4, 1),
                expected_output_shape=(2, 3, 3, 2, 1), tmp_dir=tmp_path)
    check_layer(layers.Cropping3D, {"cropping": 1}, (2, 4, 4, 4, 1), expected_output_shape=(2, 2, 2, 2, 1),
                tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping3D((1, 2))
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping3D(-1)
    with pytest.raises(ValueError, match="smaller than"):
        layers.Cropping3D(2)(torch.zeros(1, 4, 5, 5, 1))
