"""`activations.get` / `serialize` / `deserialize`."""

import pytest
import torch

from torchestimator.keras import activations
from torchestimator.keras.saving import (
    custom_object_scope,
    deserialize_keras_object,
    register_keras_serializable,
)

NAMES = [
    "relu", "sigmoid", "tanh", "softmax", "log_softmax", "elu", "selu", "softplus", "softsign",
    "swish", "silu", "gelu", "linear", "exponential", "hard_sigmoid", "leaky_relu", "relu6",
    "mish", "hard_silu",
]


@pytest.mark.parametrize("name", NAMES)
def test_name_round_trip(name):
    fn = activations.get(name)
    assert fn is getattr(activations, name)
    assert activations.serialize(fn) == name
    assert activations.deserialize(name) is fn
    # Registered globally, so generic deserialization by name works too.
    assert deserialize_keras_object(name) is fn


def test_get_none_callable_and_dict():
    assert activations.get(None) is activations.linear
    assert activations.get(torch.tanh) is torch.tanh
    assert activations.get({"class_name": "function", "config": "relu"}) is activations.relu
    assert activations.get({"module": "keras.activations", "class_name": "function",
                            "config": "gelu", "registered_name": "function"}) is activations.gelu


def test_serialize_none_and_torch_functions():
    assert activations.serialize(None) is None
    assert activations.serialize(torch.relu) == "relu"
    assert activations.serialize(torch.nn.functional.silu) == "silu"
    assert activations.serialize(activations.hard_swish) == "hard_silu"


def test_unknown_name_lists_known_names():
    with pytest.raises(ValueError) as err:
        activations.get("relu7")
    message = str(err.value)
    assert "'relu7'" in message and "relu6" in message and "register_keras_serializable" in message


def test_uninterpretable_identifier():
    with pytest.raises(TypeError, match="Could not interpret activation"):
        activations.get(3)


def test_unregistered_function_is_serialized_by_name_and_found_only_through_custom_objects():
    def my_act(x):
        return x * 2

    config = activations.serialize(my_act)  # TF 2.15's form
    assert config == {"module": "builtins", "class_name": "function", "config": "my_act",
                      "registered_name": "function"}
    assert activations.deserialize(config, custom_objects={"my_act": my_act}) is my_act
    with pytest.raises(ValueError, match="my_act"):  # never imported or looked up elsewhere
        activations.deserialize(config)
    with pytest.raises(ValueError):
        activations.serialize(lambda x: x)  # a lambda has no name to find it by


def test_custom_objects_and_registered_functions():
    def scaled(x):
        return 3 * x

    assert activations.deserialize("scaled", custom_objects={"scaled": scaled}) is scaled
    with custom_object_scope({"scaled": scaled}):
        assert activations.get("scaled") is scaled

    @register_keras_serializable(package="ActTest")
    def doubled(x):
        return 2 * x

    assert activations.serialize(doubled) == "ActTest>doubled"
    assert activations.get("ActTest>doubled") is doubled


def test_other_modules_builtins_are_not_activations():
    # "glorot_uniform" is registered (as an initializer) but is no activation.
    import torchestimator.keras.initializers  # noqa: F401

    with pytest.raises(ValueError, match="Unknown activation function"):
        activations.get("glorot_uniform")


def test_activation_layer_configs_are_activations():
    layers = pytest.importorskip("torchestimator.keras.layers")
    if not hasattr(layers, "LeakyReLU"):
        pytest.skip("the LeakyReLU layer is not part of this checkout yet")
    layer = activations.get({"class_name": "LeakyReLU", "config": {"alpha": 0.1}})
    assert isinstance(layer, layers.LeakyReLU)
    assert isinstance(activations.get("LeakyReLU"), layers.LeakyReLU)
