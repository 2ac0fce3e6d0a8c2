"""`Wrapper`: the abstract base of layers wrapping a layer — builds the wrapped layer, its
weights are the wrapper's, `get_config` holds the serialized layer and `from_config` rebuilds
it through the registry; a custom wrapper round-trips through `.keras`; errors."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


@tf.keras.saving.register_keras_serializable(package="test31")
class Doubler(layers.Wrapper):
    def call(self, inputs):
        return 2.0 * self.layer(inputs)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)


def test_wraps_and_builds_the_layer():
    wrapper = Doubler(layers.Dense(3))
    x = torch.randn(2, 4)
    y = wrapper(x)
    assert wrapper.layer.built and wrapper.built
    assert [tuple(w.shape) for w in wrapper.weights] == [(4, 3), (3,)]
    torch.testing.assert_close(y, 2.0 * wrapper.layer(x))


def test_build_builds_an_unbuilt_layer():
    wrapper = Doubler(layers.Dense(2))
    wrapper.build((None, 5))
    assert tuple(wrapper.layer.kernel.shape) == (5, 2)


def test_config_and_keras_round_trip(tmp_path):
    wrapper = Doubler(layers.Dense(3, use_bias=False), name="dbl")
    config = wrapper.get_config()
    assert config["layer"]["class_name"] == "Dense" and config["name"] == "dbl"
    check_layer(Doubler, {"layer": layers.Dense(3, use_bias=False), "name": "dbl"}, (2, 4),
                expected_output_shape=(2, 3), tmp_dir=tmp_path)
    check_layer(Doubler, {"layer": layers.Dense(2)}, (2, 4), tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="not a supported layer type"):
        Doubler(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Unknown class"):
        Doubler.from_config({"layer": {"class_name": "NoSuchLayer", "config": {}}, "name": "w"})
