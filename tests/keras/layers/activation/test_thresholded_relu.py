"""`ThresholdedReLU`: `x` where `x > theta` else 0; theta checks; config and `.keras` round
trips. Values against TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

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
    check_layer(layers.ThresholdedReLU, {"theta": 0.3}, (3, 4), expected_output_shape=(3, 4), tmp_dir=tmp_path)
    check_layer(layers.ThresholdedReLU, {"theta": 0.1}, (3, 4), tmp_dir=tmp_path)


@pytest.mark.parametrize("theta,match", [(None, "cannot be None"), (-0.1, ">=0"), ("1", "float")])
def test_bad_theta(theta, match):
    with pytest.raises(ValueError, match=match):
        layers.ThresholdedReLU(theta=theta)
