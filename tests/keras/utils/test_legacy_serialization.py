"""`tf.keras.utils.legacy.serialize_keras_object` / `deserialize_keras_object` (Keras 2's
legacy format) and `tf.keras.utils.experimental.DatasetCreator`."""

from __future__ import annotations

import pytest

import torchestimator as tf

legacy = tf.keras.utils.legacy


class _Holder:
    """A plain object with get_config holding another such object."""

    def __init__(self, inner=None, scale=1.0):
        self.inner, self.scale = inner, scale

    def get_config(self):
        return {"inner": self.inner, "scale": self.scale}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def test_layer_round_trip():
    dense = tf.keras.layers.Dense(3, activation="relu", name="dd",
                                  kernel_regularizer=tf.keras.regularizers.L2(0.1))
    config = legacy.serialize_keras_object(dense)
    assert config["class_name"] == "Dense" and set(config) == {"class_name", "config"}
    assert config["config"]["units"] == 3 and config["config"]["activation"] == "relu"
    again = legacy.deserialize_keras_object(config)
    assert isinstance(again, tf.keras.layers.Dense) and again.units == 3 and again.name == "dd"
    assert again.activation is tf.keras.activations.relu


def test_functions_and_none():
    assert legacy.serialize_keras_object(tf.keras.activations.relu) == "relu"
    assert legacy.deserialize_keras_object("relu") is tf.keras.activations.relu
    assert legacy.serialize_keras_object(None) is None
    assert legacy.deserialize_keras_object(None) is None


def test_nested_objects_are_passive_and_custom_objects_resolve():
    holder = _Holder(inner=_Holder(scale=2.0), scale=3.0)
    config = legacy.serialize_keras_object(holder)
    assert config == {"class_name": "_Holder", "config": {
        "inner": {"class_name": "_Holder", "config": {"inner": None, "scale": 2.0},
                  "__passive_serialization__": True},
        "scale": 3.0}}
    again = legacy.deserialize_keras_object(config, custom_objects={"_Holder": _Holder})
    assert isinstance(again.inner, _Holder) and again.inner.scale == 2.0 and again.scale == 3.0
    with pytest.raises(ValueError, match="Unknown object: '_Holder'"):
        legacy.deserialize_keras_object(config)
    with pytest.raises(ValueError, match="Improper config format"):
        legacy.deserialize_keras_object({"class_name": "Dense"})
    with pytest.raises(ValueError, match="doesn't implement `get_config"):
        legacy.serialize_keras_object(3.0)


def test_dataset_creator():
    creator = tf.keras.utils.experimental.DatasetCreator(
        lambda ctx=None: tf.data.Dataset.from_tensor_slices([1, 2, 3]))
    assert [int(v) for v in creator()] == [1, 2, 3]
    with pytest.raises(TypeError, match="must be a `callable`"):
        tf.keras.utils.experimental.DatasetCreator(3)
    with pytest.raises(TypeError, match="must return a Dataset"):
        tf.keras.utils.experimental.DatasetCreator(lambda: [1])()
    with pytest.raises(TypeError, match="InputOptions"):
        tf.keras.utils.experimental.DatasetCreator(lambda: None, input_options={"a": 1})


def test_fit_takes_a_dataset_creator_with_steps_per_epoch():
    import numpy as np

    import torchestimator as tf

    x = np.random.RandomState(0).rand(32, 3).astype("float32")
    seen = []

    def dataset_fn(input_context):
        seen.append((input_context.num_input_pipelines, input_context.input_pipeline_id))
        return tf.data.Dataset.from_tensor_slices((x, x.sum(1, keepdims=True))).repeat().batch(8)

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    creator = tf.keras.utils.experimental.DatasetCreator(dataset_fn)
    history = model.fit(creator, epochs=2, steps_per_epoch=3, verbose=0)
    assert len(history.history["loss"]) == 2 and seen and seen[0] == (1, 0)
    import pytest

    with pytest.raises(ValueError, match="`steps_per_epoch`, `validation_steps`, `steps`"):
        model.fit(creator, epochs=1, verbose=0)
