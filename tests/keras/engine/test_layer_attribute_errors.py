"""A layer's properties that raise AttributeError keep their own message: torch's
`nn.Module.__getattr__`, which Python calls when a property raises AttributeError, would
otherwise answer with a bare "object has no attribute"."""

import pytest

import torchestimator as tf


@pytest.mark.parametrize("attr", ["input", "output", "input_shape", "output_shape"])
def test_a_layer_never_called_symbolically_says_so_for(attr):
    layer = tf.keras.layers.Dense(3, name="hidden")
    layer.build((None, 4))
    with pytest.raises(AttributeError, match=f'Layer "hidden" has never been called .* {attr}'):
        getattr(layer, attr)
    assert not hasattr(layer, attr)


def test_weights_and_sublayers_and_missing_names_still_resolve_as_before():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    dense = model.layers[0]
    assert tuple(dense.kernel.shape) == (4, 3)
    assert tuple(dense.input.shape) == (None, 4)
    with pytest.raises(AttributeError, match="'Dense' object has no attribute 'nothing'"):
        _ = dense.nothing


def test_a_user_property_that_raises_keeps_its_message():
    class Probe(tf.keras.layers.Layer):
        @property
        def state(self):
            raise AttributeError("state is made in build(); call the layer first")

    with pytest.raises(AttributeError, match="state is made in build"):
        _ = Probe().state
