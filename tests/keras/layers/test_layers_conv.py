"""Convolution layers: Conv1D/2D/3D, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D —
Keras' weight layout, TensorFlow's padding rules, shapes, configs and errors."""

import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchestimator.keras.layers as layers
from _harness.layers import on_default_device
from torchestimator.keras import Input, backend


@pytest.fixture(autouse=True)
def _fresh():
    backend.clear_session()
    torch.manual_seed(0)


def _roundtrip(layer, x):
    y = layer(x)
    config = layer.get_config()
    json.dumps(config)
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    clone(x)
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone(x), y)


def _tf_same_pad(n, k, s, d=1):
    """TensorFlow's SAME padding of one dimension, written out from its definition."""
    eff = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + eff - n, 0)
    return total // 2, total - total // 2


def _reference_conv2d(x_nhwc, kernel, bias, strides, padding, dilation=(1, 1)):
    """Conv2D from first principles: explicit TF padding, then a plain correlation."""
    x = x_nhwc.permute(0, 3, 1, 2)
    if padding == "same":
        (t, b), (left, r) = (
            _tf_same_pad(x.shape[2], kernel.shape[0], strides[0], dilation[0]),
            _tf_same_pad(x.shape[3], kernel.shape[1], strides[1], dilation[1]),
        )
        x = F.pad(x, (left, r, t, b))
    w = kernel.permute(3, 2, 0, 1)
    return F.conv2d(x, w, bias, strides, 0, dilation).permute(0, 2, 3, 1)


# ---------------------------------------------------------------------- Conv2D
def test_conv2d_kernel_layout_initializers_and_parameter_count():
    layer = layers.Conv2D(32, 3)
    y = layer(torch.zeros(2, 28, 28, 1))
    assert y.shape == (2, 26, 26, 32)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 3, 1, 32) and np.all(bias == 0)
    limit = math.sqrt(6.0 / (9 * 1 + 9 * 32))  # glorot_uniform with receptive-field fans
    assert np.abs(kernel).max() <= limit
    assert layer.count_params() == 320


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (3, 2)])
@pytest.mark.parametrize("size", [(7, 7), (8, 9)])
def test_conv2d_matches_reference_with_tf_padding(padding, strides, size):
    layer = layers.Conv2D(4, (3, 2), strides=strides, padding=padding, activation="relu")
    x = on_default_device(torch.randn(2, *size, 3))
    y = layer(x)
    expected = torch.relu(_reference_conv2d(x, layer.kernel, layer.bias, strides, padding))
    torch.testing.assert_close(y, expected)
    assert layer.compute_output_shape((None, *size, 3)) == (None, *y.shape[1:])


def test_conv2d_same_padding_puts_the_extra_row_at_the_bottom_right():
    layer = layers.Conv2D(1, 2, strides=2, padding="same", use_bias=False, kernel_initializer="ones")
    y = layer(torch.ones(1, 5, 5, 1))[0, :, :, 0]
    expected = on_default_device(torch.tensor([[4.0, 4.0, 2.0], [4.0, 4.0, 2.0], [2.0, 2.0, 1.0]]))
    torch.testing.assert_close(y, expected)


def test_conv2d_dilation_groups_and_channels_first():
    x = on_default_device(torch.randn(2, 9, 9, 4))
    dilated = layers.Conv2D(3, 3, dilation_rate=2, padding="same")
    torch.testing.assert_close(
        dilated(x), _reference_conv2d(x, dilated.kernel, dilated.bias, (1, 1), "same", (2, 2))
    )
    grouped = layers.Conv2D(6, 3, groups=2)
    y = grouped(x)
    assert grouped.kernel.shape == (3, 3, 2, 6) and grouped.count_params() == 3 * 3 * 2 * 6 + 6
    k = grouped.kernel
    first = _reference_conv2d(x[..., :2], k[..., :3], grouped.bias[:3], (1, 1), "valid")
    torch.testing.assert_close(y[..., :3], first)
    cf = layers.Conv2D(3, 3, data_format="channels_first", padding="same")
    cf(x.permute(0, 3, 1, 2))
    cl = layers.Conv2D(3, 3, padding="same")
    cl(x)
    cl.set_weights(cf.get_weights())
    torch.testing.assert_close(cf(x.permute(0, 3, 1, 2)), cl(x).permute(0, 3, 1, 2))
    assert cf.compute_output_shape((None, 4, 9, 9)) == (None, 3, 9, 9)


def test_conv2d_symbolic_shapes_and_roundtrip():
    assert layers.Conv2D(8, 3, strides=2)(Input((32, 32, 3))).shape == (None, 15, 15, 8)
    assert layers.Conv2D(8, 3, padding="same")(Input((None, None, 3))).shape == (
        None, None, None, 8,
    )
    _roundtrip(
        layers.Conv2D(5, (2, 3), strides=(1, 2), padding="same", activation="elu",
                      kernel_regularizer="l2"),
        torch.randn(2, 6, 7, 3),
    )


def test_conv2d_extra_batch_dimensions_are_folded():
    layer = layers.Conv2D(2, 3)
    x = torch.randn(2, 3, 6, 6, 1)
    y = layer(x)
    assert y.shape == (2, 3, 4, 4, 2)
    torch.testing.assert_close(y[1, 2], layer(x[1, 2:3])[0])


def test_conv_argument_errors():
    with pytest.raises(ValueError, match="filters"):
        layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match="kernel_size"):
        layers.Conv2D(2, (3, 0))
    with pytest.raises(ValueError, match="padding"):
        layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="dilation_rate > 1"):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="groups"):
        layers.Conv2D(5, 3, groups=2)
    with pytest.raises(ValueError, match="input channels"):
        layers.Conv2D(4, 3, groups=2)(torch.zeros(1, 5, 5, 3))
    with pytest.raises(ValueError, match="<= 0"):
        layers.Conv2D(4, 5)(torch.zeros(1, 3, 3, 1))
    with pytest.raises(ValueError, match="channel dimension"):
        layers.Conv2D(4, 3)(Input((5, 5, None)))
    with pytest.raises(ValueError, match="data_format"):
        layers.Conv2D(4, 3, data_format="nhwc")
    layer = layers.Conv2D(2, 3, name="c")
    layer(torch.zeros(1, 5, 5, 3))
    with pytest.raises(ValueError, match='"c".*axis -1.*3'):
        layer(torch.zeros(1, 5, 5, 4))


# ---------------------------------------------------------------------- Conv1D / Conv3D
def test_conv1d_shapes_and_causal_padding():
    layer = layers.Conv1D(4, 3, strides=2, padding="same")
    assert layer(torch.zeros(2, 9, 3)).shape == (2, 5, 4)
    assert layer.kernel.shape == (3, 3, 4)
    causal = layers.Conv1D(1, 3, padding="causal", dilation_rate=2, use_bias=False,
                           kernel_initializer="ones")
    x = torch.zeros(1, 10, 1)
    x[0, 6, 0] = 1.0
    y = causal(x)[0, :, 0]
    assert y.shape == (10,)
    assert y[:6].abs().sum() == 0  # no output before t=6 depends on input 6
    assert y[6] == 1 and y[8] == 1 and y[10 - 1] == 0
    assert layers.Conv1D(2, 3, padding="causal")(Input((None, 5))).shape == (None, None, 2)
    _roundtrip(layers.Conv1D(3, 2, padding="causal"), torch.randn(2, 6, 2))


def test_conv1d_matches_torch_conv1d():
    layer = layers.Conv1D(3, 4, use_bias=True)
    x = on_default_device(torch.randn(2, 11, 5))
    y = layer(x)
    expected = F.conv1d(x.transpose(1, 2), layer.kernel.permute(2, 1, 0), layer.bias)
    torch.testing.assert_close(y, expected.transpose(1, 2))


def test_conv3d_shapes_and_parameters():
    layer = layers.Conv3D(4, 3, padding="same", strides=2)
    y = layer(torch.randn(2, 7, 8, 9, 2))
    assert y.shape == (2, 4, 4, 5, 4)
    assert layer.kernel.shape == (3, 3, 3, 2, 4) and layer.count_params() == 27 * 2 * 4 + 4
    assert layers.Conv3D(2, 2)(Input((4, 4, 4, 1))).shape == (None, 3, 3, 3, 2)
    cf = layers.Conv3D(2, 2, data_format="channels_first")
    assert cf(torch.randn(1, 1, 4, 4, 4)).shape == (1, 2, 3, 3, 3)
    _roundtrip(layers.Conv3D(2, 2), torch.randn(1, 3, 3, 3, 1))


# ---------------------------------------------------------------------- Conv2DTranspose
@pytest.mark.parametrize(
    "size,kernel,strides,padding,output_padding",
    [
        (4, 3, 2, "same", None), (4, 3, 2, "valid", None), (5, 2, 3, "valid", None),
        (5, 4, 2, "same", None), (4, 3, 2, "same", 1), (4, 3, 3, "valid", 2),
        (3, 1, 3, "same", None), (6, 3, 1, "same", None),
    ],
)
def test_conv2d_transpose_is_the_adjoint_of_conv2d(size, kernel, strides, padding, output_padding):
    """TF defines conv2d_transpose as the gradient of conv2d: <conv(z), y> == <z, convT(y)>."""
    up = layers.Conv2DTranspose(
        2, kernel, strides=strides, padding=padding, output_padding=output_padding, use_bias=False
    )
    y = on_default_device(torch.randn(1, size, size, 3))
    z_shape = up.compute_output_shape((1, size, size, 3))
    up_out = up(y)
    assert tuple(up_out.shape) == z_shape
    down = layers.Conv2D(3, kernel, strides=strides, padding=padding, use_bias=False)
    z = on_default_device(torch.randn(z_shape))
    down(z)
    down.set_weights(up.get_weights())  # (k, k, 2, 3) in both layouts
    conv_z = down(z)
    assert conv_z.shape == y.shape
    torch.testing.assert_close(torch.sum(conv_z * y), torch.sum(z * up_out), rtol=1e-4, atol=1e-4)


def test_conv2d_transpose_shapes_bias_and_config():
    layer = layers.Conv2DTranspose(4, 3, strides=2, padding="same", activation="relu")
    y = layer(torch.randn(2, 5, 6, 3))
    assert y.shape == (2, 10, 12, 4) and layer.kernel.shape == (3, 3, 4, 3)
    assert layer.count_params() == 3 * 3 * 4 * 3 + 4
    assert layers.Conv2DTranspose(2, 3, strides=2)(Input((5, 5, 1))).shape == (None, 11, 11, 2)
    bias_only = layers.Conv2DTranspose(1, 2, strides=3, kernel_initializer="zeros",
                                       bias_initializer="ones")
    torch.testing.assert_close(bias_only(torch.randn(1, 2, 2, 1)), on_default_device(torch.ones(1, 6, 6, 1)))
    with pytest.raises(ValueError, match="output padding"):
        layers.Conv2DTranspose(2, 3, strides=2, output_padding=2)
    cf = layers.Conv2DTranspose(2, 3, strides=2, padding="same", data_format="channels_first")
    assert cf(torch.randn(1, 3, 4, 4)).shape == (1, 2, 8, 8)
    _roundtrip(layers.Conv2DTranspose(2, 3, strides=2, output_padding=1), torch.randn(1, 3, 3, 2))


# ---------------------------------------------------------------------- Depthwise / Separable
def test_depthwise_conv2d_filters_each_channel_separately():
    layer = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    x = on_default_device(torch.randn(2, 6, 6, 3))
    y = layer(x)
    assert y.shape == (2, 6, 6, 6)
    assert layer.depthwise_kernel.shape == (3, 3, 3, 2)
    assert layer.count_params() == 3 * 3 * 3 * 2 + 6
    k = layer.depthwise_kernel
    for c in range(3):
        for m in range(2):
            ref = _reference_conv2d(x[..., c:c + 1], k[:, :, c:c + 1, m:m + 1],
                                    layer.bias[c * 2 + m:c * 2 + m + 1], (1, 1), "same")
            torch.testing.assert_close(y[..., c * 2 + m:c * 2 + m + 1], ref)
    config = layer.get_config()
    assert "filters" not in config and config["depth_multiplier"] == 2
    _roundtrip(layers.DepthwiseConv2D(2, strides=2, padding="same"), torch.randn(1, 5, 5, 2))
    assert layers.DepthwiseConv2D(3)(Input((8, 8, 4))).shape == (None, 6, 6, 4)


def test_separable_conv2d_is_depthwise_then_pointwise():
    layer = layers.SeparableConv2D(5, 3, strides=2, padding="same")
    x = torch.randn(2, 7, 7, 3)
    y = layer(x)
    assert y.shape == (2, 4, 4, 5)
    assert [tuple(w.shape) for w in layer.weights] == [(3, 3, 3, 1), (1, 1, 3, 5), (5,)]
    assert layer.count_params() == 47
    depthwise = layers.DepthwiseConv2D(3, strides=2, padding="same", use_bias=False)
    depthwise(x)
    depthwise.set_weights([layer.get_weights()[0]])
    pointwise = layers.Conv2D(5, 1)
    pointwise(depthwise(x))
    pointwise.set_weights(layer.get_weights()[1:])
    torch.testing.assert_close(y, pointwise(depthwise(x)))
    _roundtrip(layers.SeparableConv2D(2, 2, depth_multiplier=2), torch.randn(1, 4, 4, 2))


def test_convolution_aliases():
    assert layers.Convolution2D is layers.Conv2D and layers.Convolution1D is layers.Conv1D
    assert layers.SeparableConvolution2D is layers.SeparableConv2D


def test_mixed_precision_policy():
    x = torch.randn(1, 6, 6, 2)
    for layer in (layers.Conv2D(3, 3, dtype="mixed_bfloat16"),
                  layers.DepthwiseConv2D(3, dtype="mixed_bfloat16"),
                  layers.SeparableConv2D(3, 3, dtype="mixed_bfloat16"),
                  layers.Conv2DTranspose(3, 3, dtype="mixed_bfloat16")):
        assert layer(x).dtype == torch.bfloat16
        assert all(w.dtype == torch.float32 for w in layer.weights)
