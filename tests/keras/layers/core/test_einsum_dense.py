"""`EinsumDense`: kernel and bias shapes from the equation (plain, left- and right-elided),
output shapes, config and `.keras` round trips, equation errors. Values against TF 2.15:
tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


@pytest.mark.parametrize(
    "equation,output_shape,bias_axes,in_shape,kernel,bias,out",
    [
        ("ab,bc->ac", 4, "c", (3, 5), (5, 4), (4,), (3, 4)),
        ("abc,cd->abd", (None, 4), "d", (2, 3, 5), (5, 4), (4,), (2, 3, 4)),
        ("...b,bc->...c", 4, "c", (2, 3, 2, 5), (5, 4), (4,), (2, 3, 2, 4)),
        ("abc...,cd->abd...", (3, 2), "b", (2, 3, 4, 5), (4, 2), (3, 1, 1), (2, 3, 2, 5)),
        ("abc,cde->abde", (None, 2, 3), "de", (2, 3, 4), (4, 2, 3), (2, 3), (2, 3, 2, 3)),
        ("ab,bcd->acd", (2, 3), None, (3, 4), (4, 2, 3), None, (3, 2, 3)),
    ],
)
def test_shapes(equation, output_shape, bias_axes, in_shape, kernel, bias, out):
    layer = layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)
    y = layer(torch.randn(*in_shape))
    assert tuple(layer.kernel.shape) == kernel
    assert (None if layer.bias is None else tuple(layer.bias.shape)) == bias
    assert tuple(y.shape) == out
    assert layer.compute_output_shape((None,) + in_shape[1:]) == (None,) + out[1:]
    names = [w.name.split("/")[-1] for w in layer.weights]
    assert names == (["kernel:0", "bias:0"] if bias else ["kernel:0"])


def test_equals_dense():
    x = torch.randn(4, 5)
    ein = layers.EinsumDense("ab,bc->ac", 3, bias_axes="c", activation="relu")
    dense = layers.Dense(3, activation="relu")
    ein(x)
    dense(x)
    dense.set_weights(ein.get_weights())
    torch.testing.assert_close(ein(x), dense(x))


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.EinsumDense("abc,cd->abd", (None, 4), bias_axes="d")
    config = layer.get_config()
    assert config["output_shape"] == [None, 4] and config["equation"] == "abc,cd->abd"
    check_layer(layers.EinsumDense, {"equation": "abc,cd->abd", "output_shape": (None, 4), "bias_axes": "d"},
                (2, 3, 5), expected_output_shape=(2, 3, 4), tmp_dir=tmp_path)
    check_layer(layers.EinsumDense, {"equation": "...b,bc->...c", "output_shape": 2, "bias_axes": "c"}, (2, 3, 5),
                expected_output_shape=(2, 3, 2), tmp_dir=tmp_path)


@pytest.mark.parametrize(
    "equation,output_shape,bias_axes,match",
    [
        ("ab->ac", 4, None, "Invalid einsum equation"),
        ("ab,bc->ad", 4, None, "Dimension 'd'"),
        ("ab,bce->ac", 4, None, "Weight dimension 'e'"),
        ("ab,bc->ac", 4, "x", "Bias dimension 'x'"),
        ("abc,cd->abd", (7, 4), None, "shared dimension 'b'"),
    ],
)
def test_errors(equation, output_shape, bias_axes, match):
    with pytest.raises(ValueError, match=match):
        layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)(torch.randn(2, 3, 5)
                                                                          if "abc" in equation else torch.randn(2, 5))
