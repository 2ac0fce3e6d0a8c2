"""Functional, Sequential and subclassed models: graph building, shapes, parameter counts,
config round trips, cloning, summaries, torch interoperability."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras import layers


@pytest.fixture(autouse=True)
def _fresh_names():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_dense_512_on_784_has_401920_parameters():
    model = tf.keras.Sequential([layers.Dense(512, input_dim=784)])
    assert model.count_params() == 401_920


def test_seed_functional_64_32_32_10_has_3466_parameters():
    inputs = tf.keras.Input(shape=(64,))
    x = layers.Dense(32, activation="relu")(inputs)
    x = layers.Dense(32, activation="relu")(x)
    outputs = layers.Dense(10, activation="softmax")(x)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    assert model.count_params() == 3466
    assert model.output_shape == (None, 10)
    assert [layer.name for layer in model.layers] == ["input_1", "dense", "dense_1", "dense_2"]


def test_symbolic_shapes_without_data():
    inputs = tf.keras.Input(shape=(28, 28, 1))
    x = layers.Conv2D(8, 3)(inputs)
    assert x.shape == (None, 26, 26, 8)
    y = (x * 2 + 1)[:, :5]
    assert y.shape == (None, 5, 26, 8)


def test_wrong_feature_count_names_layer_and_shapes():
    model = tf.keras.Sequential([layers.Dense(4, input_shape=(64,))])
    with pytest.raises(ValueError, match=r"\(None, 64\).*\(2, 63\)|64.*63"):
        model(torch.zeros(2, 63))
    layer = layers.Dense(3)
    layer(torch.zeros(1, 64))
    with pytest.raises(ValueError, match='layer "dense_1".*value 64.*\\(2, 63\\)'):
        layer(torch.zeros(2, 63))


def test_sequential_and_functional_twin_give_identical_outputs():
    seq = tf.keras.Sequential([
        layers.Dense(16, activation="relu", input_shape=(8,)),
        layers.Dense(4, activation="softmax"),
    ])
    inputs = tf.keras.Input(shape=(8,))
    x = layers.Dense(16, activation="relu")(inputs)
    fun = tf.keras.Model(inputs, layers.Dense(4, activation="softmax")(x))
    fun.set_weights(seq.get_weights())
    data = np.random.default_rng(0).normal(size=(5, 8)).astype("float32")
    np.testing.assert_allclose(seq.predict(data, verbose=0), fun.predict(data, verbose=0), rtol=1e-6)


def test_multi_input_multi_output_and_shared_layer():
    a = tf.keras.Input(shape=(4,), name="a")
    b = tf.keras.Input(shape=(4,), name="b")
    shared = layers.Dense(3, name="shared")
    merged = layers.Concatenate()([shared(a), shared(b)])
    out1 = layers.Dense(1, name="out1")(merged)
    out2 = layers.Dense(2, name="out2")(merged)
    model = tf.keras.Model([a, b], [out1, out2])
    assert model.input_names == ["a", "b"]
    assert model.output_names == ["out1", "out2"]
    assert len(shared._inbound_nodes) == 2
    r1, r2 = model({"a": torch.ones(2, 4), "b": torch.zeros(2, 4)})
    assert r1.shape == (2, 1) and r2.shape == (2, 2)
    with pytest.raises(ValueError, match="missing input"):
        model({"a": torch.ones(2, 4)})


def test_model_as_layer_and_composition():
    inner_in = tf.keras.Input(shape=(4,))
    inner = tf.keras.Model(inner_in, layers.Dense(2)(inner_in), name="inner")
    outer_in = tf.keras.Input(shape=(4,))
    outer = tf.keras.Model(outer_in, layers.Dense(1)(inner(outer_in)))
    assert outer(torch.ones(3, 4)).shape == (3, 1)
    assert outer.count_params() == 4 * 2 + 2 + 2 + 1


def test_graph_disconnected_error_names_input():
    a = tf.keras.Input(shape=(2,), name="first")
    b = tf.keras.Input(shape=(2,), name="second")
    out = layers.Add()([a, b])
    with pytest.raises(ValueError, match="Graph disconnected.*second"):
        tf.keras.Model(a, out)


def test_functional_config_round_trip():
    inputs = tf.keras.Input(shape=(6,), name="x")
    h = layers.Dense(5, activation="tanh")(inputs)
    d = layers.Dropout(0.5)(h)
    outputs = [layers.Dense(1)(d), layers.Dense(3, activation="softmax")(h)]
    model = tf.keras.Model(inputs, outputs, name="twoheads")
    config = model.get_config()
    clone = tf.keras.Model.from_config(config)
    assert clone.get_config() == config
    clone.set_weights(model.get_weights())
    data = torch.randn(4, 6)
    for a, b in zip(model(data), clone(data)):
        torch.testing.assert_close(a, b)


def test_sequential_config_round_trip_and_json():
    model = tf.keras.Sequential([layers.Dense(3, input_shape=(2,)), layers.Activation("relu")])
    rebuilt = tf.keras.models.model_from_json(model.to_json())
    assert rebuilt.get_config() == model.get_config()


def test_clone_model_makes_new_weights_same_architecture():
    model = tf.keras.Sequential([layers.Dense(3, input_shape=(2,))])
    clone = tf.keras.models.clone_model(model)
    assert clone.get_config()["layers"][1]["config"]["units"] == 3
    assert clone.layers[0] is not model.layers[0]
    assert clone.count_params() == model.count_params()


def test_sequential_add_pop_and_deferred_build():
    model = tf.keras.Sequential()
    model.add(layers.Dense(4))
    model.add(layers.Dense(2))
    assert not model.built
    assert model(torch.ones(3, 5)).shape == (3, 2)
    assert model.built and model.count_params() == 5 * 4 + 4 + 4 * 2 + 2
    model.pop()
    assert len(model.layers) == 1
    with pytest.raises(ValueError, match="unique names"):
        model.add(layers.Dense(2, name=model.layers[0].name))


def test_subclassed_model_tracks_layers_and_weights():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = layers.Dense(8, activation="relu")
            self.blocks = [layers.Dense(8), layers.Dense(8)]
            self.out = layers.Dense(1)

        def call(self, inputs, training=None):
            x = self.hidden(inputs)
            for block in self.blocks:
                x = block(x)
            return self.out(x)

    net = Net()
    net.build((None, 4))
    assert len(net.trainable_weights) == 8
    assert net(torch.ones(2, 4)).shape == (2, 1)


def test_summary_prints_keras_table():
    model = tf.keras.Sequential([layers.Dense(512, input_dim=784), layers.Dense(10)])
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert 'Model: "sequential"' in text
    assert "dense (Dense)" in text and "(None, 512)" in text and "401920" in text
    assert "Total params: 407050" in text
    assert "Non-trainable params: 0" in text


def test_models_are_plain_torch_modules():
    inputs = tf.keras.Input(shape=(4,))
    model = tf.keras.Model(inputs, layers.Dense(2)(layers.Dense(3, activation="relu")(inputs)))
    # torch keys name layers by their index in model.layers (the InputLayer is 0)
    assert sorted(model.state_dict()) == ["1.bias", "1.kernel", "2.bias", "2.kernel"]
    assert len(list(model.parameters())) == 4
    x = torch.randn(5, 4)
    program = torch.export.export(model, (x,))
    torch.testing.assert_close(program.module()(x), model(x))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model(x).detach().clone()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    assert not torch.allclose(before, model(x))


def test_trainable_false_freezes_weights():
    layer = layers.Dense(3)
    layer(torch.ones(1, 2))
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2
    assert not any(p.requires_grad for p in layer.parameters())


def test_inputs_must_come_from_input():
    with pytest.raises(ValueError, match="symbolic tensors"):
        tf.keras.Model(torch.zeros(2), torch.zeros(2))


def test_tensor_ops_on_symbolic_tensors_round_trip():
    a = tf.keras.Input(shape=(4,))
    b = tf.keras.Input(shape=(4,))
    h = layers.Dense(4)(a)
    out = (h * 2 + b)[:, :2] @ torch.ones(2, 3) - 1
    model = tf.keras.Model([a, b], out)
    assert out.shape == (None, 3)
    xa, xb = torch.randn(5, 4), torch.randn(5, 4)
    dense = next(layer for layer in model.layers if isinstance(layer, layers.Dense))
    ones = torch.ones(2, 3)
    expected = (dense(xa) * 2 + xb.to(dense.kernel.device))[:, :2] @ ones.to(dense.kernel.device) - 1
    torch.testing.assert_close(model([xa, xb]), expected)
    clone = tf.keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    torch.testing.assert_close(clone([xa, xb]), model([xa, xb]))


def test_an_intermediate_tensor_as_model_input_gets_its_own_input_layer():
    """Keras 2 accepts a layer's output as a model input (FeatureSpace's tutorial builds its
    training model on the encoded features): it stands for a new Input and the layers after it
    are shared."""
    import numpy as np

    i = tf.keras.Input(shape=(3,))
    h = layers.Dense(2, name="first")(i)
    head = layers.Dense(1, name="head")
    model = tf.keras.Model(h, head(h))
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Dense"]
    assert model.layers[1] is head and model.inputs[0].shape == (None, 2)
    x = np.ones((4, 2), "float32")
    np.testing.assert_allclose(model(x).detach().numpy(), head(torch.as_tensor(x)).detach().numpy())
    clone = tf.keras.Model.from_config(model.get_config())
    assert clone(x).shape == (4, 1)
