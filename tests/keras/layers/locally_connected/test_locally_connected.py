"""`LocallyConnected1D` / `LocallyConnected2D`: Keras's weight layouts of the three
`implementation`s (which compute the same function), unshared weights, config and `.keras`
round trips, errors. Values against TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_1d_weight_shapes_per_implementation():
    x = torch.randn(2, 6, 2)
    shapes = {}
    for impl in (1, 2, 3):
        layer = layers.LocallyConnected1D(3, 3, implementation=impl)
        assert tuple(layer(x).shape) == (2, 4, 3)
        shapes[impl] = [tuple(w.shape) for w in layer.weights]
    assert shapes[1] == [(4, 6, 3), (4, 3)]
    assert shapes[2] == [(6, 2, 4, 3), (4, 3)]
    assert shapes[3] == [(4 * 3 * 3 * 2,), (4, 3)]


def test_2d_weight_shapes():
    x = torch.randn(2, 4, 5, 2)
    layer = layers.LocallyConnected2D(2, (2, 3))
    assert tuple(layer(x).shape) == (2, 3, 3, 2)
    assert [tuple(w.shape) for w in layer.weights] == [(9, 12, 2), (3, 3, 2)]
    layer2 = layers.LocallyConnected2D(2, (2, 3), implementation=2)
    layer2(x)
    assert tuple(layer2.kernel.shape) == (4, 5, 2, 3, 3, 2)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_implementations_compute_the_same_function(data_format):
    """Implementation 1's kernel, placed into the dense masked kernel of implementation 2 and
    the sparse entries of implementation 3, gives the same outputs."""
    x = torch.randn(2, 7, 3) if data_format == "channels_last" else torch.randn(2, 3, 7)
    l1, l2, l3 = (layers.LocallyConnected1D(2, 3, strides=2, data_format=data_format, implementation=i)
                  for i in (1, 2, 3))
    y1 = l1(x)
    l2(x)
    l3(x)
    k1 = l1.kernel.detach()  # (out, k * in, filters), window flattened (k, in) or (in, k)
    dense = torch.zeros_like(l2.kernel)
    for o in range(3):
        for j in range(3):
            for c in range(3):
                row = j * 3 + c if data_format == "channels_last" else c * 3 + j
                if data_format == "channels_last":
                    dense[o * 2 + j, c, o, :] = k1[o, row]
                else:
                    dense[c, o * 2 + j, :, o] = k1[o, row]
    with torch.no_grad():
        l2.kernel.copy_(dense)
        l2.bias.copy_(l1.bias)
        l3.bias.copy_(l1.bias)
        flat = dense.reshape(21, 6).t()  # (out flat, in flat)
        idx = l3._idxs
        l3.kernel.copy_(flat[idx[:, 0], idx[:, 1]])
    torch.testing.assert_close(l2(x), y1, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(l3(x), y1, rtol=1e-5, atol=1e-5)


def test_weights_are_not_shared():
    layer = layers.LocallyConnected1D(1, 1, use_bias=False)
    x = torch.ones(1, 3, 1)
    layer(x)
    with torch.no_grad():
        layer.kernel.copy_(torch.tensor([1.0, 2.0, 3.0]).reshape(3, 1, 1))
    assert layer(x).flatten().tolist() == [1.0, 2.0, 3.0]


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.LocallyConnected2D(2, 2, strides=(2, 1), implementation=3, activation="relu")
    config = layer.get_config()
    assert config["implementation"] == 3 and config["strides"] == (2, 1)
    check_layer(layers.LocallyConnected2D, {"filters": 2, "kernel_size": 2, "strides": (2, 1), "implementation": 3,
                                             "activation": "relu"}, (2, 4, 3, 2),
                expected_output_shape=(2, 2, 2, 2), tmp_dir=tmp_path)
    check_layer(layers.LocallyConnected2D, {"filters": 2, "kernel_size": 2}, (2, 4, 3, 2),
                expected_output_shape=(2, 3, 2, 2), tmp_dir=tmp_path)
    check_layer(layers.LocallyConnected1D, {"filters": 2, "kernel_size": 2, "implementation": 2}, (2, 5, 3),
                expected_output_shape=(2, 4, 2), tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="only \"valid\" is supported if implementation is 1"):
        layers.LocallyConnected1D(2, 3, padding="same")
    with pytest.raises(ValueError, match="implementation"):
        layers.LocallyConnected2D(2, 3, implementation=4)
    with pytest.raises(ValueError, match="<= 0"):
        layers.LocallyConnected1D(2, 5)(torch.zeros(1, 3, 2))
