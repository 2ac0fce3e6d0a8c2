"""`tf.keras.utils.get_custom_objects` / `tf.keras.saving.get_custom_objects`: the live dict."""

from __future__ import annotations

import pytest

import torchestimator as tf


class _Scale(tf.keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_live_dict_is_used_by_deserialization():
    objects = tf.keras.utils.get_custom_objects()
    assert objects is tf.keras.saving.get_custom_objects()
    config = {"class_name": "ScaleForGetCustomObjects", "config": {"factor": 3.0}}
    with pytest.raises(ValueError, match="ScaleForGetCustomObjects"):
        tf.keras.saving.deserialize_keras_object(config)
    objects["ScaleForGetCustomObjects"] = _Scale
    try:
        layer = tf.keras.saving.deserialize_keras_object(config)
        assert isinstance(layer, _Scale) and layer.factor == 3.0
    finally:
        del objects["ScaleForGetCustomObjects"]


def test_registration_writes_into_it_and_scopes_do_not():
    @tf.keras.saving.register_keras_serializable(package="GCOTest")
    class Thing(_Scale):
        pass

    assert tf.keras.utils.get_custom_objects()["GCOTest>Thing"] is Thing
    with tf.keras.utils.custom_object_scope({"ScopedOnly": Thing}):
        assert "ScopedOnly" not in tf.keras.utils.get_custom_objects()
