"""Tests of ConvLSTM1D/2D/3D beyond the TF parity fixtures (tests/keras/parity): shapes eager
and symbolic, data formats, states, masking, dropout, stateful, configs and errors."""

import json

import numpy as np
import pytest
import torch

import torchestimator as tf
import torchestimator.keras.layers as layers
from _harness.layers import on_default_device


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    tf.keras.backend.clear_session()


@pytest.mark.parametrize(
    "cls,shape,kwargs,want",
    [
        (layers.ConvLSTM1D, (2, 3, 7, 2), {}, (2, 5, 4)),
        (layers.ConvLSTM2D, (2, 3, 7, 6, 2), {"strides": 2}, (2, 3, 2, 4)),
        (layers.ConvLSTM2D, (2, 3, 7, 6, 2), {"padding": "same", "strides": 2}, (2, 4, 3, 4)),
        (layers.ConvLSTM3D, (1, 2, 4, 4, 5, 1), {"padding": "same"}, (1, 4, 4, 5, 4)),
    ],
)
def test_output_shapes_eager_and_symbolic(cls, shape, kwargs, want):
    layer = cls(4, 3, return_sequences=True, return_state=True, **kwargs)
    out, h, c = layer(torch.randn(shape))
    assert tuple(out.shape) == (want[0], shape[1]) + want[1:]
    assert tuple(h.shape) == tuple(c.shape) == want
    torch.testing.assert_close(out[:, -1], h)
    sym = cls(4, 3, **kwargs)(tf.keras.Input(shape[1:]))
    assert sym.shape == (None,) + want[1:]
    assert layer.compute_output_shape(shape)[1] == want


def test_weights_layout_and_unit_forget_bias():
    layer = layers.ConvLSTM2D(3, (3, 2))
    layer(torch.zeros(1, 2, 5, 5, 4))
    assert [tuple(w.shape) for w in layer.get_weights()] == [(3, 2, 4, 12), (3, 2, 3, 12), (12,)]
    assert [w.name.split("/")[-1].split(":")[0] for w in layer.weights] == ["kernel", "recurrent_kernel", "bias"]
    np.testing.assert_array_equal(layer.get_weights()[2], [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    assert layer.count_params() == 3 * 2 * 4 * 12 + 3 * 2 * 3 * 12 + 12


def test_channels_first_equals_channels_last():
    x = torch.randn(2, 3, 6, 5, 2)
    last = layers.ConvLSTM2D(3, 3, padding="same", return_sequences=True)
    first = layers.ConvLSTM2D(3, 3, padding="same", return_sequences=True, data_format="channels_first")
    y = last(x)
    first(x.permute(0, 1, 4, 2, 3))
    first.set_weights(last.get_weights())
    torch.testing.assert_close(first(x.permute(0, 1, 4, 2, 3)), y.permute(0, 1, 4, 2, 3))


def test_cell_step_loop_equals_layer():
    """The layer's batched input convolution gives the cell's step-by-step result."""
    layer = layers.ConvLSTM1D(2, 3, padding="same", return_sequences=True, go_backwards=True)
    x = on_default_device(torch.randn(2, 4, 6, 3))
    y = layer(x)
    h = c = on_default_device(torch.zeros(2, 6, 2))
    outs = []
    for t in reversed(range(4)):
        out, (h, c) = layer.cell(x[:, t], [h, c])
        outs.append(out)
    torch.testing.assert_close(y, torch.stack(outs, 1))


def test_initial_state_and_mask():
    layer = layers.ConvLSTM1D(2, 3, return_sequences=True, return_state=True)
    x = on_default_device(torch.randn(2, 4, 5, 1))
    h0, c0 = on_default_device([torch.randn(2, 3, 2), torch.randn(2, 3, 2)])
    out, h, c = layer(x, initial_state=[h0, c0])
    out2, _, _ = layer(x)
    assert not torch.allclose(out, out2)
    mask = on_default_device(torch.tensor([[True, True, False, False], [True, True, True, True]]))
    out_m, h_m, _ = layer(x, mask=mask, initial_state=[h0, c0])
    torch.testing.assert_close(h_m[0], out_m[0, 1])  # states held after the last unmasked step
    torch.testing.assert_close(out_m[0, 3], out_m[0, 1])  # outputs repeat the previous one
    with pytest.raises(ValueError, match="initial state 0 should have shape"):
        layer(x, initial_state=[on_default_device(torch.zeros(2, 5, 2)), c0])


def test_dropout_only_in_training():
    layer = layers.ConvLSTM2D(2, 2, dropout=0.5, recurrent_dropout=0.5)
    x = torch.randn(2, 3, 4, 4, 2)
    a, b = layer(x, training=False), layer(x, training=False)
    torch.testing.assert_close(a, b)
    c = layer(x, training=True)
    assert c.shape == a.shape and not torch.allclose(a, c)


def test_dropout_masks_are_per_sequence_and_per_gate():
    """In training the layer's batched input convolution uses, at every step, the masks the cell
    draws once per sequence (one per gate), as the cell's own step does."""
    layer = layers.ConvLSTM1D(2, 3, padding="same", dropout=0.4, recurrent_dropout=0.3, return_sequences=True)
    x = on_default_device(torch.randn(2, 3, 5, 2))
    y = layer(x, training=True)  # draws and caches the masks
    h = c = on_default_device(torch.zeros(2, 5, 2))
    outs = []
    for t in range(3):
        out, (h, c) = layer.cell(x[:, t], [h, c], training=True)  # reuses the cached masks
        outs.append(out)
    torch.testing.assert_close(y, torch.stack(outs, 1))
    assert len(layer.cell._dropout_mask_cache) == 4 and len(layer.cell._recurrent_dropout_mask_cache) == 4


def test_stateful_continues_and_resets():
    layer = layers.ConvLSTM1D(2, 2, stateful=True)
    x = torch.randn(1, 3, 4, 1)
    first = layer(x)
    second = layer(x)
    assert not torch.allclose(first, second)
    layer.reset_states()
    torch.testing.assert_close(layer(x), first)
    with pytest.raises(ValueError, match="stateful"):
        layer(torch.randn(2, 3, 4, 1))


def test_config_round_trip_and_serialization():
    layer = layers.ConvLSTM2D(
        3, (2, 3), strides=1, padding="same", dilation_rate=2, activation="relu",
        recurrent_activation="sigmoid", return_sequences=True, go_backwards=True, dropout=0.1,
    )
    config = layer.get_config()
    json.dumps(config)
    assert config["filters"] == 3 and config["kernel_size"] == (2, 3) and config["dilation_rate"] == (2, 2)
    assert config["recurrent_activation"] == "sigmoid" and config["return_sequences"] and config["go_backwards"]
    assert "cell" not in config and "time_major" not in config
    twin = layers.ConvLSTM2D.from_config(config)
    x = torch.randn(1, 2, 5, 5, 1)
    layer(x)
    twin(x)
    twin.set_weights(layer.get_weights())
    torch.testing.assert_close(twin(x), layer(x))
    again = tf.keras.utils.deserialize_keras_object(tf.keras.utils.serialize_keras_object(layer))
    assert type(again) is layers.ConvLSTM2D


def test_model_save_and_load(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3, 6, 6, 1)), layers.ConvLSTM2D(2, 3), layers.Flatten(), layers.Dense(1)])
    x = np.random.default_rng(0).normal(size=(2, 3, 6, 6, 1)).astype("float32")
    model.compile("adam", "mse")
    model.fit(x, np.ones((2, 1), "float32"), epochs=1, verbose=0)
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"filters": 0, "kernel_size": 3}, ValueError, "filters"),
        ({"filters": 2, "kernel_size": (3, 3, 3)}, ValueError, "kernel_size"),
        ({"filters": 2, "kernel_size": 3, "padding": "causal"}, ValueError, "padding"),
        ({"filters": 2, "kernel_size": 3, "strides": 2, "dilation_rate": 2}, ValueError, "dilation_rate"),
        ({"filters": 2, "kernel_size": 3, "unroll": True}, TypeError, "unroll"),
    ],
)
def test_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        layers.ConvLSTM2D(**kwargs)


def test_input_rank_error():
    with pytest.raises(ValueError, match="expected ndim=5"):
        layers.ConvLSTM2D(2, 3)(torch.zeros(2, 3, 4, 4))
