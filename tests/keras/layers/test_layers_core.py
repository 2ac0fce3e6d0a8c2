"""Core layers: Dense, Activation, Dropout, Flatten, Reshape, Permute, RepeatVector,
Lambda, Embedding, Masking — shapes, weights, numerics, configs and errors."""

import json
import math

import numpy as np
import pytest
import torch

import torchestimator.keras.layers as layers
from _harness.layers import on_default_device
from torchestimator.keras import Input, backend, regularizers
from torchestimator.keras.layers.core import SafeModeScope


@pytest.fixture(autouse=True)
def _fresh():
    backend.clear_session()
    torch.manual_seed(0)


def _roundtrip(layer, x, **call_kwargs):
    """get_config -> from_config gives the same config, and the same outputs with copied weights."""
    y = layer(x, **call_kwargs)
    config = layer.get_config()
    json.dumps(config)
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    clone(x, **call_kwargs)
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone(x, **call_kwargs), y)
    return clone


def _double(x):
    return x * 2.0


# ---------------------------------------------------------------------- Dense
def test_dense_512_on_784_inputs_has_401920_parameters():
    layer = layers.Dense(512, input_dim=784)
    layer.build((None, 784))
    assert layer.count_params() == 401_920
    assert layer.get_config()["batch_input_shape"] == [None, 784]


def test_dense_weights_use_keras_layout_and_initializers():
    layer = layers.Dense(300)
    layer(torch.zeros(2, 500))
    kernel, bias = layer.get_weights()
    assert kernel.shape == (500, 300) and bias.shape == (300,)
    limit = math.sqrt(6.0 / (500 + 300))  # glorot_uniform
    assert np.abs(kernel).max() <= limit
    assert kernel.std() == pytest.approx(limit / math.sqrt(3), rel=0.05)
    assert np.all(bias == 0)
    assert [w._keras_name for w in layer.weights] == ["dense/kernel", "dense/bias"]


def test_dense_computes_activation_of_x_kernel_plus_bias():
    layer = layers.Dense(3, activation="relu")
    x = on_default_device(torch.randn(4, 5))
    layer(x)
    kernel = on_default_device(torch.randn(5, 3))
    bias = on_default_device(torch.randn(3))
    layer.set_weights([kernel.numpy(), bias.numpy()])
    torch.testing.assert_close(layer(x), torch.relu(x @ kernel + bias))
    # rank > 2: the last axis is contracted
    x3 = on_default_device(torch.randn(2, 7, 5))
    torch.testing.assert_close(layer(x3), torch.relu(x3 @ kernel + bias))
    # integer inputs are cast to the layer's dtype
    assert layer(torch.ones(2, 5, dtype=torch.int64)).dtype == torch.float32


def test_dense_without_bias_and_shapes():
    layer = layers.Dense(4, use_bias=False)
    assert layer(torch.ones(2, 3, 6)).shape == (2, 3, 4)
    assert len(layer.weights) == 1 and layer.count_params() == 24
    assert layers.Dense(4)(Input((3, 6))).shape == (None, 3, 4)
    assert layers.Dense(4).compute_output_shape((None, 8)) == (None, 4)


def test_dense_wrong_input_shape_names_layer_expected_and_received():
    layer = layers.Dense(10, name="hidden")
    layer(torch.zeros(2, 64))
    with pytest.raises(ValueError) as err:
        layer(torch.zeros(2, 63))
    msg = str(err.value)
    assert '"hidden"' in msg and "64" in msg and "(2, 63)" in msg


def test_dense_argument_validation():
    with pytest.raises(ValueError, match="units"):
        layers.Dense(0)
    with pytest.raises(ValueError, match="units"):
        layers.Dense(2.5)
    with pytest.raises(ValueError, match="last dimension"):
        layers.Dense(2)(Input((None,)))
    with pytest.raises(ValueError, match="min_ndim=2"):
        layers.Dense(2)(torch.zeros(3))


def test_dense_regularizers_add_losses_and_config_roundtrip():
    layer = layers.Dense(
        3, activation="tanh", kernel_regularizer=regularizers.L2(0.1),
        activity_regularizer="l1", bias_initializer="ones",
    )
    x = torch.randn(4, 2)
    y = layer(x)
    kernel = layer.kernel.detach()
    expected = [0.1 * torch.sum(kernel**2), 0.01 * torch.sum(torch.abs(y.detach())) / 4]
    got = sorted(float(v.detach()) for v in layer.losses)
    assert got == pytest.approx(sorted(float(v) for v in expected))
    config = layer.get_config()
    assert config["activation"] == "tanh"
    assert config["kernel_initializer"]["class_name"] == "GlorotUniform"
    assert config["kernel_regularizer"]["class_name"] == "L2"
    _roundtrip(layer, x)


def test_dense_trainable_false_freezes_weights():
    layer = layers.Dense(2)
    layer(torch.zeros(1, 3))
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2


# ---------------------------------------------------------------------- Activation
def test_activation_layer():
    x = torch.linspace(-2, 2, 9).reshape(1, 9)
    torch.testing.assert_close(layers.Activation("relu")(x), torch.relu(x))
    torch.testing.assert_close(layers.Activation(torch.tanh)(x), torch.tanh(x))
    torch.testing.assert_close(layers.Activation(None)(x), x)
    assert layers.Activation("softmax")(Input((5,))).shape == (None, 5)
    layer = _roundtrip(layers.Activation("sigmoid"), x)
    assert layer.get_config()["activation"] == "sigmoid"
    with pytest.raises(ValueError):
        layers.Activation("no_such_activation")


# ---------------------------------------------------------------------- Dropout
def test_dropout_training_vs_inference():
    layer = layers.Dropout(0.5)
    x = torch.ones(200, 50)
    torch.testing.assert_close(layer(x), x)  # training=None means inference
    torch.testing.assert_close(layer(x, training=False), x)
    y = layer(x, training=True)
    kept = y != 0
    assert 0.4 < kept.float().mean().item() < 0.6
    torch.testing.assert_close(y[kept], torch.full_like(y[kept], 2.0))  # scaled by 1/(1-rate)


def test_dropout_noise_shape_and_seed():
    layer = layers.Dropout(0.5, noise_shape=(None, 1, 6), seed=3)
    y = layer(torch.ones(8, 5, 6), training=True)
    assert torch.all(y == y[:, :1, :])  # one mask shared over axis 1
    again = layers.Dropout(0.5, noise_shape=(None, 1, 6), seed=3)(torch.ones(8, 5, 6), training=True)
    torch.testing.assert_close(y, again)
    with pytest.raises(ValueError, match="noise_shape"):
        layer(torch.ones(2, 3), training=True)


def test_dropout_rate_validation_shape_and_config():
    for bad in (-0.1, 1.5, "a"):
        with pytest.raises(ValueError, match="rate"):
            layers.Dropout(bad)
    assert layers.Dropout(0.2)(Input((3, 4))).shape == (None, 3, 4)
    config = _roundtrip(layers.Dropout(0.3, seed=1), torch.ones(2, 2)).get_config()
    assert config["rate"] == 0.3 and config["seed"] == 1 and config["noise_shape"] is None


# ---------------------------------------------------------------------- Flatten / Reshape / Permute / RepeatVector
def test_flatten_shapes_and_channels_first_order():
    assert layers.Flatten()(torch.zeros(2, 3, 4, 5)).shape == (2, 60)
    assert layers.Flatten()(torch.zeros(2)).shape == (2, 1)
    assert layers.Flatten()(Input((3, 4))).shape == (None, 12)
    assert layers.Flatten()(Input((None, 4))).shape == (None, None)
    x = torch.randn(2, 4, 5, 3)  # NHWC
    cl = layers.Flatten()(x)
    cf = layers.Flatten(data_format="channels_first")(x.permute(0, 3, 1, 2))
    torch.testing.assert_close(cl, cf)  # same feature order either way
    _roundtrip(layers.Flatten(data_format="channels_first"), x)


def test_reshape():
    x = torch.arange(24.0).reshape(2, 12)
    torch.testing.assert_close(layers.Reshape((3, 4))(x), x.reshape(2, 3, 4))
    assert layers.Reshape((-1, 2))(x).shape == (2, 6, 2)
    assert layers.Reshape((-1, 2))(Input((12,))).shape == (None, 6, 2)
    assert layers.Reshape((-1, 2))(Input((None,))).shape == (None, None, 2)
    with pytest.raises(ValueError, match="total size"):
        layers.Reshape((5,))(Input((12,)))
    with pytest.raises(ValueError, match="total size"):
        layers.Reshape((5,))(x)
    with pytest.raises(ValueError, match="target_shape"):
        layers.Reshape((-1, -1))
    assert _roundtrip(layers.Reshape((4, 3)), x).get_config()["target_shape"] == [4, 3]


def test_permute():
    x = torch.randn(2, 3, 4)
    torch.testing.assert_close(layers.Permute((2, 1))(x), x.transpose(1, 2))
    assert layers.Permute((2, 1))(Input((10, 64))).shape == (None, 64, 10)
    with pytest.raises(ValueError, match="consecutive"):
        layers.Permute((0, 1))
    with pytest.raises(ValueError, match="ndim=3"):
        layers.Permute((2, 1))(torch.zeros(2, 3, 4, 5))
    _roundtrip(layers.Permute((2, 1)), x)


def test_repeat_vector():
    x = torch.randn(2, 3)
    y = layers.RepeatVector(4)(x)
    assert y.shape == (2, 4, 3) and torch.equal(y[:, 2], x)
    assert layers.RepeatVector(4)(Input((3,))).shape == (None, 4, 3)
    with pytest.raises(ValueError, match="ndim=2"):
        layers.RepeatVector(2)(torch.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="`n`"):
        layers.RepeatVector(0)
    _roundtrip(layers.RepeatVector(2), x)


# ---------------------------------------------------------------------- Lambda
def test_lambda_calls_function_with_arguments_mask_and_training():
    x = torch.randn(3, 4)
    torch.testing.assert_close(layers.Lambda(lambda t: t**2)(x), x**2)
    scaled = layers.Lambda(lambda t, factor: t * factor, arguments={"factor": 3.0})
    torch.testing.assert_close(scaled(x), x * 3.0)
    seen = {}

    def spy(t, mask=None, training=None):
        seen["training"], seen["mask"] = training, mask
        return t

    m = torch.tensor([True, False, True])
    layers.Lambda(spy)(x, mask=m, training=True)
    assert seen["training"] is True and seen["mask"] is m


def test_lambda_symbolic_shape_and_output_shape():
    assert layers.Lambda(lambda t: t[:, :2])(Input((5,))).shape == (None, 2)
    layer = layers.Lambda(lambda t: t.sum(-1, keepdim=True), output_shape=(1,))
    assert layer.compute_output_shape((None, 7)) == (None, 1)
    masking = layers.Lambda(lambda t: t, mask=lambda t, m: t[:, 0] > 0)
    y = masking(torch.tensor([[1.0], [-1.0]]))
    assert y._keras_mask.tolist() == [True, False]


def test_lambda_config_stores_source_and_needs_unsafe_mode_to_load():
    offset = 0.5
    layer = layers.Lambda(lambda t: t * 2 + offset, name="affine")
    x = torch.randn(2, 3)
    y = layer(x)
    config = layer.get_config()
    json.dumps(config)
    assert config["function_type"] == "lambda"
    record = config["function"]
    assert record["class_name"] == "__lambda__"
    assert record["config"]["source"] == "lambda t: t * 2 + offset"
    assert record["config"]["closure"] == {"offset": {"value": 0.5}}
    with pytest.raises(ValueError, match='"affine".*safe_mode=False'):
        layers.Lambda.from_config(config)
    clone = layers.Lambda.from_config(config, safe_mode=False)
    torch.testing.assert_close(clone(x), y)
    with SafeModeScope(False):
        torch.testing.assert_close(layers.Lambda.from_config(config)(x), y)
    with SafeModeScope(True), pytest.raises(ValueError, match="affine"):
        layers.Lambda.from_config(config)


def test_lambda_picks_the_right_lambda_on_a_shared_line_and_uses_globals():
    first, second = layers.Lambda(lambda t: t + 1), layers.Lambda(lambda t: torch.exp(t) - 1)
    config = second.get_config()
    assert config["function"]["config"]["source"] == "lambda t: torch.exp(t) - 1"
    assert config["function"]["config"]["globals"]["torch"] == {"module": "torch"}
    x = torch.randn(4)
    torch.testing.assert_close(layers.Lambda.from_config(config, safe_mode=False)(x), torch.exp(x) - 1)
    assert first.get_config()["function"]["config"]["source"] == "lambda t: t + 1"


def test_lambda_named_function_loads_in_safe_mode_only_when_allowed():
    # Keras 3's rule: in safe mode a user function (saved by module + name) is not imported
    # from the module the config names; it loads when passed in custom_objects or registered,
    # or with safe_mode=False. The package's own pure tensor functions load as they are.
    layer = layers.Lambda(_double)
    config = layer.get_config()
    assert config["function"] == "_double" and config["function_type"] == "function"
    x = torch.randn(3)
    with pytest.raises(ValueError, match="_double.*safe_mode=False"):
        layers.Lambda.from_config(config)
    torch.testing.assert_close(
        layers.Lambda.from_config(config, custom_objects={"_double": _double})(x), x * 2)
    torch.testing.assert_close(layers.Lambda.from_config(config, safe_mode=False)(x), x * 2)
    from torchestimator.keras import activations

    relu = layers.Lambda(activations.relu).get_config()
    torch.testing.assert_close(layers.Lambda.from_config(relu)(x), torch.relu(x))
    config["function"] = "no_such_function"
    with pytest.raises(ValueError, match="no_such_function"):
        layers.Lambda.from_config(config, safe_mode=False)


def test_lambda_rejects_non_callable():
    with pytest.raises(TypeError, match="callable"):
        layers.Lambda(3)


# ---------------------------------------------------------------------- Embedding
def test_embedding_uniform_initializer_and_lookup():
    layer = layers.Embedding(1000, 64)
    ids = torch.tensor([[4, 20, 0], [1, 2, 999]])
    out = layer(ids)
    assert out.shape == (2, 3, 64)
    table = layer.get_weights()[0]
    assert table.shape == (1000, 64)
    assert np.abs(table).max() <= 0.05 and table.std() == pytest.approx(0.1 / math.sqrt(12), rel=0.05)
    torch.testing.assert_close(out[0, 1], layer.embeddings[20])
    init = layer.get_config()["embeddings_initializer"]
    assert init["class_name"] == "RandomUniform"
    assert init["config"]["minval"] == -0.05 and init["config"]["maxval"] == 0.05
    assert layer.count_params() == 64_000


def test_embedding_float_ids_mask_zero_and_input_length():
    layer = layers.Embedding(10, 4, mask_zero=True, input_length=3)
    out = layer(np.array([[1.0, 0.0, 3.0]]))
    assert out.shape == (1, 3, 4)
    assert out._keras_mask.tolist() == [[True, False, True]]
    assert layer.compute_output_shape((None, 3)) == (None, 3, 4)
    assert layer.get_config()["batch_input_shape"] == [None, 3]
    assert layers.Embedding(10, 4).get_config()["batch_input_shape"] == [None, None]
    sym = layers.Embedding(10, 4, mask_zero=True)(Input((5,), dtype="int64"))
    assert sym.shape == (None, 5, 4) and sym._keras_mask.shape == (None, 5)
    with pytest.raises(ValueError, match="input_length"):
        layer.compute_output_shape((None, 4))
    _roundtrip(layer, torch.tensor([[1, 2, 0]]))


def test_embedding_mask_reaches_global_average_pooling():
    emb = layers.Embedding(10, 3, mask_zero=True)
    pooled = layers.GlobalAveragePooling1D()(emb(torch.tensor([[1, 2, 0, 0]])))
    vectors = emb.embeddings.detach()
    torch.testing.assert_close(pooled[0], (vectors[1] + vectors[2]) / 2)


def test_embedding_errors():
    with pytest.raises(ValueError, match="positive"):
        layers.Embedding(0, 4)
    with pytest.raises(ValueError, match="sparse"):
        layers.Embedding(5, 4, sparse=True)
    layer = layers.Embedding(5, 2, name="tokens")
    with pytest.raises(IndexError, match='"tokens".*index 7.*\\[0, 5\\)'):
        layer(torch.tensor([[1, 7]]))


# ---------------------------------------------------------------------- Masking
def test_masking_zeroes_and_masks_padded_steps():
    x = torch.tensor([[[1.0, 2.0], [0.0, 0.0], [0.0, 3.0]]])
    y = layers.Masking()(x)
    assert y._keras_mask.tolist() == [[True, False, True]]
    torch.testing.assert_close(y, x)
    z = layers.Masking(mask_value=-1.0)(torch.tensor([[[5.0], [-1.0]]]))
    assert z._keras_mask.tolist() == [[True, False]] and z[0, 1, 0] == 0.0
    sym = layers.Masking()(Input((6, 2)))
    assert sym.shape == (None, 6, 2) and sym._keras_mask.shape == (None, 6)
    _roundtrip(layers.Masking(mask_value=2.0), x)


def test_mixed_precision_policy_keeps_float32_weights_and_computes_in_bfloat16():
    dense = layers.Dense(3, dtype="mixed_bfloat16")
    y = dense(torch.randn(2, 4))
    assert y.dtype == torch.bfloat16 and dense.kernel.dtype == torch.float32
    emb = layers.Embedding(5, 2, dtype="mixed_bfloat16")
    assert emb(torch.tensor([[1, 2]])).dtype == torch.bfloat16
    assert emb.embeddings.dtype == torch.float32


def test_lambda_with_unsaveable_free_variable_needs_custom_objects():
    projection = torch.nn.Linear(3, 3)
    layer = layers.Lambda(lambda t: projection(t), name="proj")
    config = json.loads(json.dumps(layer.get_config()))
    assert "unserializable" in config["function"]["config"]["closure"]["projection"]
    with pytest.raises(ValueError, match="projection"):
        layers.Lambda.from_config(config, safe_mode=False)
    clone = layers.Lambda.from_config(config, custom_objects={"projection": projection},
                                      safe_mode=False)
    x = torch.randn(2, 3)
    torch.testing.assert_close(clone(x), projection(x))
