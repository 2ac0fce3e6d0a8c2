"""`ThresholdedReLU`: `x` where `x > theta` else 0; theta checks; config and `.keras` round
trips. Values against TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

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


def test_values():
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 1.5, 3.0])
    torch.testing.assert_close(layers.ThresholdedReLU()(x), torch.tensor([0.0, 0.0, 0.0, 0.0, 1.5, 3.0]))
    torch.testing.assert_close(layers.ThresholdedReLU(theta=0.0)(x), torch.relu(x))


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.ThresholdedReLU(theta=0.3)
    assert layer.get_config()["theta"] == pytest.approx(0.3)
    x = torch.randn(3, 4)
    config_round_trip(layer, x)
    keras_round_trip(layers.ThresholdedReLU(0.1), x, tmp_path)


@pytest.mark.parametrize("theta,match", [(None, "cannot be None"), (-0.1, ">=0"), ("1", "float")])
def test_bad_theta(theta, match):
    with pytest.raises(ValueError, match=match):
        layers.ThresholdedReLU(theta=theta)
