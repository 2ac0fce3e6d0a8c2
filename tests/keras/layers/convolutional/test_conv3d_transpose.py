"""`Conv3DTranspose` (and `Convolution3DTranspose`): TF's output sizes, Keras' kernel layout,
Keras 2.15's config (no `dilation_rate`), config and `.keras` round trips. Values against
TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_alias_weights_and_shapes():
    assert layers.Convolution3DTranspose is layers.Conv3DTranspose
    layer = layers.Conv3DTranspose(4, (2, 3, 1), strides=(2, 1, 3), padding="same")
    y = layer(torch.zeros(2, 3, 4, 2, 5))
    assert [tuple(w.shape) for w in layer.weights] == [(2, 3, 1, 4, 5), (4,)]
    assert tuple(y.shape) == (2, 6, 4, 6, 4)
    assert layer.compute_output_shape((None, 3, 4, 2, 5)) == (None, 6, 4, 6, 4)


def test_output_padding_and_channels_first():
    x = torch.randn(1, 2, 3, 2, 2)
    last = layers.Conv3DTranspose(2, 3, strides=2, output_padding=(1, 0, 1))
    y = last(x)
    assert tuple(y.shape) == (1, 6, 7, 6, 2)
    first = layers.Conv3DTranspose(2, 3, strides=2, output_padding=(1, 0, 1), data_format="channels_first")
    xf = x.permute(0, 4, 1, 2, 3)
    first(xf)
    first.set_weights(last.get_weights())
    torch.testing.assert_close(first(xf).permute(0, 2, 3, 4, 1), y)


def test_config_leaves_out_dilation_rate_as_keras(tmp_path):
    layer = layers.Conv3DTranspose(2, 2, strides=2)
    config = layer.get_config()
    assert "dilation_rate" not in config and config["output_padding"] is None
    check_layer(layers.Conv3DTranspose, {"filters": 2, "kernel_size": 2, "strides": 2}, (1, 2, 2, 3, 2),
                expected_output_shape=(1, 4, 4, 6, 2), tmp_dir=tmp_path)
    check_layer(layers.Conv3DTranspose, {"filters": 1, "kernel_size": 2, "padding": "same", "strides": (1, 2, 1)},
                (1, 2, 2, 3, 2), expected_output_shape=(1, 2, 4, 3, 1), tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="output padding"):
        layers.Conv3DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="rank 5"):
        layers.Conv3DTranspose(2, 3)(torch.zeros(1, 4, 4, 2))
