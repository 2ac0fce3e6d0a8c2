"""Activation layers: Softmax, ReLU, LeakyReLU, PReLU, ELU."""

import json

import numpy as np
import pytest
import torch

import torchestimator.keras.layers as layers
from _harness.layers import on_default_device
from torchestimator.keras import Input, backend


@pytest.fixture(autouse=True)
def _fresh():
    backend.clear_session()
    torch.manual_seed(0)


X = torch.tensor([[-3.0, -1.0, 0.0, 0.5, 2.0, 7.0]])


def _roundtrip(layer, x, **kwargs):
    y = layer(x, **kwargs)
    config = layer.get_config()
    json.dumps(config)
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    clone(x, **kwargs)
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone(x, **kwargs), y)


def test_softmax_axis_and_mask():
    x = torch.randn(2, 3, 4)
    torch.testing.assert_close(layers.Softmax()(x), torch.softmax(x, -1))
    torch.testing.assert_close(layers.Softmax(axis=1)(x), torch.softmax(x, 1))
    both = layers.Softmax(axis=[1, 2])(x)
    torch.testing.assert_close(both.sum(dim=(1, 2)), torch.ones(2))
    logits = torch.tensor([[1.0, 2.0, 3.0]])
    masked = layers.Softmax()(logits, mask=torch.tensor([[True, True, False]]))
    torch.testing.assert_close(masked, torch.cat([torch.softmax(logits[:, :2], -1), torch.zeros(1, 1)], 1))
    assert layers.Softmax()(Input((5,))).shape == (None, 5)
    _roundtrip(layers.Softmax(axis=1), x)


def test_relu_variants_follow_keras_formula():
    torch.testing.assert_close(layers.ReLU()(X), torch.tensor([[0.0, 0.0, 0.0, 0.5, 2.0, 7.0]]))
    torch.testing.assert_close(layers.ReLU(max_value=6.0)(X), torch.tensor([[0.0, 0, 0, 0.5, 2, 6]]))
    torch.testing.assert_close(layers.ReLU(max_value=1.0)(X), torch.tensor([[0.0, 0, 0, 0.5, 1, 1]]))
    torch.testing.assert_close(
        layers.ReLU(negative_slope=0.1)(X), torch.tensor([[-0.3, -0.1, 0.0, 0.5, 2.0, 7.0]])
    )
    # threshold: x if x > threshold, else negative_slope * (x - threshold)
    torch.testing.assert_close(
        layers.ReLU(threshold=1.0, negative_slope=0.5, max_value=5.0)(X),
        torch.tensor([[-2.0, -1.0, -0.5, -0.25, 2.0, 5.0]]),
    )
    torch.testing.assert_close(layers.ReLU(threshold=0.5)(X), torch.tensor([[0.0, 0, 0, 0, 2, 7]]))
    for kwargs in ({"max_value": -1}, {"negative_slope": -0.1}, {"threshold": -1.0},
                   {"negative_slope": None}):
        with pytest.raises(ValueError, match="ReLU"):
            layers.ReLU(**kwargs)
    config = layers.ReLU(max_value=6).get_config()
    assert config["max_value"] == 6.0 and config["negative_slope"] == 0.0
    _roundtrip(layers.ReLU(max_value=3.0, negative_slope=0.2), X)


def test_leaky_relu_and_elu():
    torch.testing.assert_close(
        layers.LeakyReLU()(X), torch.where(X >= 0, X, 0.3 * X)
    )
    assert layers.LeakyReLU().get_config()["alpha"] == 0.3
    torch.testing.assert_close(layers.LeakyReLU(alpha=0.1)(X), torch.where(X >= 0, X, 0.1 * X))
    with pytest.raises(ValueError, match="alpha"):
        layers.LeakyReLU(alpha=None)
    torch.testing.assert_close(layers.ELU()(X), torch.where(X > 0, X, torch.expm1(X)))
    torch.testing.assert_close(layers.ELU(alpha=0.5)(X), torch.where(X > 0, X, 0.5 * torch.expm1(X)))
    with pytest.raises(ValueError, match="Alpha"):
        layers.ELU(alpha=None)
    _roundtrip(layers.LeakyReLU(0.2), X)
    _roundtrip(layers.ELU(2.0), X)


def test_prelu_learns_one_slope_per_unit_or_shared():
    layer = layers.PReLU()
    x = on_default_device(torch.randn(4, 5, 6, 3))
    y = layer(x)
    assert layer.alpha.shape == (5, 6, 3) and layer.count_params() == 90
    torch.testing.assert_close(y, torch.relu(x))  # alpha initialized to zeros
    shared = layers.PReLU(alpha_initializer="ones", shared_axes=[1, 2])
    torch.testing.assert_close(shared(x), x)
    assert shared.alpha.shape == (1, 1, 3) and shared.count_params() == 3
    shared.set_weights([np.array([[[0.1, 0.2, 0.3]]], dtype=np.float32)])
    expected = torch.where(x > 0, x, x * on_default_device(torch.tensor([0.1, 0.2, 0.3])))
    torch.testing.assert_close(shared(x), expected)
    assert layers.PReLU(shared_axes=1)(Input((None, 4))).shape == (None, None, 4)
    with pytest.raises(ValueError, match="unknown dimensions"):
        layers.PReLU()(Input((None, 4)))
    with pytest.raises(ValueError, match="shared_axes"):
        layers.PReLU(shared_axes=[0])
    _roundtrip(layers.PReLU(shared_axes=[1], alpha_initializer="ones"), torch.randn(2, 3, 4))
