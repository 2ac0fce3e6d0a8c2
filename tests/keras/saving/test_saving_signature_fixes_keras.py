"""TF 2.15's signatures of Keras (de)serialization helpers and utilities:
`use_legacy_format` of `layers`/`losses`/`metrics.(de)serialize`,
`deserialize_keras_object(config, custom_objects, safe_mode, **kwargs)`,
`get_registered_object(name, custom_objects, module_objects)` and `Progbar(width=30)`."""

import inspect
import shutil

import pytest

import torchestimator as tf
from torchestimator.keras._registry import safe_mode_scope


def test_serialize_use_legacy_format_writes_class_name_and_config_only():
    keras = tf.keras
    dense = keras.layers.Dense(2)
    assert set(keras.layers.serialize(dense)) == {"class_name", "config", "registered_name"}
    legacy = keras.layers.serialize(dense, True)  # TF's position 1
    assert set(legacy) == {"class_name", "config"} and legacy["class_name"] == "Dense"
    assert type(keras.layers.deserialize(legacy, None, True)) is keras.layers.Dense
    # TF 2.15.1: {'class_name': 'MeanSquaredError', 'config': {...}} and 'mean_squared_error'
    loss = keras.losses.serialize(keras.losses.MeanSquaredError(), use_legacy_format=True)
    assert set(loss) == {"class_name", "config"}
    assert type(keras.losses.deserialize(loss, use_legacy_format=True)) is keras.losses.MeanSquaredError
    assert keras.metrics.serialize(keras.metrics.mse, use_legacy_format=True) == "mean_squared_error"
    auc = keras.metrics.serialize(keras.metrics.AUC(), use_legacy_format=True)
    assert set(auc) == {"class_name", "config"}
    assert type(keras.metrics.deserialize(auc, None, True)) is keras.metrics.AUC


def test_deserialize_keras_object_safe_mode_argument():
    deserialize = tf.keras.saving.deserialize_keras_object
    assert list(inspect.signature(deserialize).parameters)[:3] == ["config", "custom_objects", "safe_mode"]
    custom = {"cwd": shutil.copy}  # a function of a module safe mode never loads
    with pytest.raises(ValueError, match="Refusing"):
        deserialize("cwd", custom)
    assert deserialize("cwd", custom, False) is shutil.copy
    with safe_mode_scope(True), pytest.raises(ValueError, match="Refusing"):
        deserialize("cwd", custom, safe_mode=False)  # an enclosing scope wins, as in TF
    relu = tf.keras.activations.relu
    assert deserialize("mine", module_objects={"mine": relu}) is relu  # TF's legacy keyword
    with pytest.raises(ValueError, match="Arguments not recognized"):
        deserialize("relu", foo=1)


def test_get_registered_object_module_objects():
    get = tf.keras.utils.get_registered_object
    assert get("Mine", None, {"Mine": 3}) == 3
    assert get("Mine", {"Mine": 4}, {"Mine": 3}) == 4  # custom objects first, as TF


def test_progbar_width_defaults_to_tfs_30():
    assert tf.keras.utils.Progbar(10).width == 30
