"""`ZeroPadding3D`: pads the three spatial axes with zeros (both data formats), argument forms,
config and `.keras` round trips. Values against TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from _layers31_checks import config_round_trip, keras_round_trip  # noqa: E402

import torchestimator as tf  # noqa: E402

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
    x = torch.randn(2, 2, 2, 2, 3)
    config_round_trip(layers.ZeroPadding3D(((0, 1), (2, 0), (1, 1))), x)
    keras_round_trip(layers.ZeroPadding3D(1), x, tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="padding"):
        layers.ZeroPadding3D(((1, 1), (1, 1)))
    with pytest.raises(ValueError, match="padding"):
        layers.ZeroPadding3D("same")
