"""`Conv1DTranspose` (and `Convolution1DTranspose`): TF's output lengths, Keras' kernel layout,
config and `.keras` round trips, errors. Values against TF 2.15: tests/keras/parity/
test_parity_layers_31.py (fixtures/layers_31.npz)."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer
from _harness.layers import on_default_device

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_alias_and_weights_layout():
    assert layers.Convolution1DTranspose is layers.Conv1DTranspose
    layer = layers.Conv1DTranspose(4, 3)
    layer(torch.zeros(2, 5, 2))
    assert [tuple(w.shape) for w in layer.weights] == [(3, 4, 2), (4,)]
    assert [w.name.split("/")[-1] for w in layer.weights] == ["kernel:0", "bias:0"]


@pytest.mark.parametrize(
    "kwargs,length,expected",
    [
        ({"kernel_size": 3}, 5, 7),
        ({"kernel_size": 3, "strides": 2, "padding": "same"}, 5, 10),
        ({"kernel_size": 4, "strides": 3, "padding": "valid"}, 5, 16),
        ({"kernel_size": 3, "strides": 2, "output_padding": 1}, 4, 10),
        ({"kernel_size": 3, "dilation_rate": 2}, 5, 9),
    ],
)
def test_output_length_follows_tf(kwargs, length, expected):
    layer = layers.Conv1DTranspose(2, **kwargs)
    y = layer(torch.randn(1, length, 3))
    assert tuple(y.shape) == (1, expected, 2)
    assert layer.compute_output_shape((None, length, 3)) == (None, expected, 2)


def test_is_the_adjoint_of_conv1d():
    """<conv(x), y> == <x, conv_transpose(y)> for the same kernel (valid padding, stride 2)."""
    x, y = on_default_device([torch.randn(2, 9, 3), torch.randn(2, 4, 5)])
    conv = layers.Conv1D(5, 3, strides=2, use_bias=False)
    out = conv(x)
    assert out.shape == y.shape
    tconv = layers.Conv1DTranspose(3, 3, strides=2, use_bias=False)
    tconv(y)
    with torch.no_grad():
        tconv.kernel.copy_(conv.kernel)  # (k, 3, 5): (k, filters, in_channels) of the transpose
    back = tconv(y)[:, :9]
    torch.testing.assert_close((out * y).sum(), (x * back).sum(), rtol=1e-4, atol=1e-4)


def test_channels_first_equals_channels_last():
    x = torch.randn(2, 5, 3)
    last = layers.Conv1DTranspose(2, 3, strides=2, padding="same")
    first = layers.Conv1DTranspose(2, 3, strides=2, padding="same", data_format="channels_first")
    y = last(x)
    first(x.transpose(1, 2))
    first.set_weights(last.get_weights())
    torch.testing.assert_close(first(x.transpose(1, 2)).transpose(1, 2), y)


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.Conv1DTranspose(3, 3, strides=2, padding="same", output_padding=1, activation="relu")
    config = layer.get_config()
    assert config["output_padding"] == (1,) and config["strides"] == (2,)
    check_layer(layers.Conv1DTranspose, {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same",
                                          "output_padding": 1, "activation": "relu"}, (2, 4, 2),
                expected_output_shape=(2, 8, 3), tmp_dir=tmp_path)
    check_layer(layers.Conv1DTranspose, {"filters": 3, "kernel_size": 2, "strides": 2}, (2, 4, 2),
                expected_output_shape=(2, 8, 3), tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="output padding"):
        layers.Conv1DTranspose(2, 3, strides=1, output_padding=1)
    with pytest.raises(ValueError, match="groups"):
        layers.Conv1DTranspose(2, 3, groups=2)
    with pytest.raises(ValueError, match="padding"):
        layers.Conv1DTranspose(2, 3, padding="causal")
    with pytest.raises(ValueError, match="rank 3"):
        layers.Conv1DTranspose(2, 3)(torch.zeros(1, 4, 4, 2))
