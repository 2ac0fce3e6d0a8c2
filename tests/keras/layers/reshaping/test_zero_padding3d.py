"""`ZeroPadding3D`: pads the three spatial axes with zeros (both data formats), argument forms,
config and `.keras` round trips. Values against TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_pads_each_axis():
    x = torch.randn(2, 2, 3, 2, 4)
    layer = layers.ZeroPadding3D(((1, 0), (0, 2), (1, 1)))
    y = layer(x)
    assert tuple(y.shape) == (2, 3, 5, 4, 4)
    torch.testing.assert_close(y[:, 1:, :3, 1:3], x)
    assert y.abs().sum() == pytest.approx(x.abs().sum().item(), rel=1e-6)
    assert layer.compute_output_shape((None, 2, None, 2, 4)) == (None, 3, None, 4, 4)


def test_argument_forms_and_channels_first():
    assert layers.ZeroPadding3D().padding == ((1, 1), (1, 1), (1, 1))
    assert layers.ZeroPadding3D((1, 2, 3)).padding == ((1, 1), (2, 2), (3, 3))
    x = torch.randn(1, 2, 2, 3, 2)
    y = layers.ZeroPadding3D(1, data_format="channels_first")(x)
    assert tuple(y.shape) == (1, 2, 4, 5, 4)
    torch.testing.assert_close(y[:, :, 1:3, 1:4, 1:3], x)


def test_config_and_keras_round_trip(tmp_path):
    check_layer(layers.ZeroPadding3D, {"padding": ((0, 1), (2, 0), (1, 1))}, (2, 2, 2, 2, 3),
                expected_output_shape=(2, 3, 4, 4, 3), tmp_dir=tmp_path)
    check_layer(layers.ZeroPadding3D, {"padding": 1}, (2, 2, 2, 2, 3), expected_output_shape=(2, 4, 4, 4, 3),
                tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="padding"):
        layers.ZeroPadding3D(((1, 1), (1, 1)))
    with pytest.raises(ValueError, match="padding"):
        layers.ZeroPadding3D("same")
