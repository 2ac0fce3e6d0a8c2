"""`AlphaDropout`: identity in inference, in training the SELU-preserving affine dropout
(values `a * x + b` or `a * alpha_p + b`, mean 0 and variance 1 kept for standard normal
inputs), seeds, noise_shape, config (Keras 2.15: rate and seed) and `.keras` round trips."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)

ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


def _affine(rate):
    a = ((1 - rate) * (1 + rate * ALPHA_P**2)) ** -0.5
    return a, -a * ALPHA_P * rate


def test_inference_is_identity():
    x = torch.randn(4, 5)
    layer = layers.AlphaDropout(0.4)
    assert layer(x) is x
    assert layer(x, training=False) is x


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_rates_outside_open_interval_are_identity(rate):
    x = torch.randn(4, 5)
    assert layers.AlphaDropout(rate)(x, training=True) is x


def test_training_values_and_statistics():
    rate = 0.3
    x = torch.randn(200_000)
    y = layers.AlphaDropout(rate, seed=3)(x, training=True)
    a, b = _affine(rate)
    kept = torch.isclose(y, a * x + b, atol=1e-6)
    dropped = torch.isclose(y, torch.full_like(y, a * ALPHA_P + b), atol=1e-6)
    assert bool((kept | dropped).all())
    assert dropped.float().mean().item() == pytest.approx(rate, abs=0.01)
    assert y.mean().item() == pytest.approx(0.0, abs=0.02)
    assert y.var().item() == pytest.approx(1.0, abs=0.03)


def test_seed_and_noise_shape():
    x = torch.randn(3, 4, 5)
    y1 = layers.AlphaDropout(0.5, seed=7)(x, training=True)
    y2 = layers.AlphaDropout(0.5, seed=7)(x, training=True)
    torch.testing.assert_close(y1, y2)
    y = layers.AlphaDropout(0.5, noise_shape=(3, 1, 5), seed=1)(x, training=True)
    a, b = _affine(0.5)
    dropped = torch.isclose(y, torch.full_like(y, a * ALPHA_P + b), atol=1e-6)
    assert bool((dropped == dropped[:, :1]).all())  # one mask for every step


def test_fit_trains_with_it_and_predict_does_not(tmp_path):
    x = torch.randn(16, 3)
    model = tf.keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.AlphaDropout(0.5)])
    model.compile("sgd", "mse")
    ref = model.predict(x.numpy(), verbose=0)
    torch.testing.assert_close(torch.as_tensor(model.predict(x.numpy(), verbose=0)), torch.as_tensor(ref))
    model.fit(x.numpy(), torch.zeros(16, 4).numpy(), epochs=1, verbose=0)


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.AlphaDropout(0.25, seed=5)
    config = layer.get_config()
    assert config["rate"] == 0.25 and config["seed"] == 5 and "noise_shape" not in config
    check_layer(layers.AlphaDropout, {"rate": 0.25, "seed": 5}, (2, 3), expected_output_shape=(2, 3),
                tmp_dir=tmp_path)
    check_layer(layers.AlphaDropout, {"rate": 0.1}, (2, 3), tmp_dir=tmp_path)


def test_rate_is_checked():
    with pytest.raises(ValueError, match="rate"):
        layers.AlphaDropout(1.5)
