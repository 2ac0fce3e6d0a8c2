"""`tf.keras.dtensor`: the namespace TF 2.15 lists, whose names refuse with an error naming
DTensor and `tf.distribute`; `tf.keras.export` is registered."""

import pytest

import torchestimator as tf


def test_dtensor_names_refuse():
    assert "dtensor" in dir(tf.keras) and "export" in dir(tf.keras)
    assert "experimental" in dir(tf.keras.dtensor)
    with pytest.raises(NotImplementedError, match="DTensor.*tf.distribute"):
        tf.keras.dtensor.experimental.LayoutMap  # noqa: B018
    for name in ["Adadelta", "Adagrad", "Adam", "AdamW", "RMSprop", "SGD"]:
        with pytest.raises(NotImplementedError, match=f"optimizers.{name}.*DTensor"):
            getattr(tf.keras.dtensor.experimental.optimizers, name)
    with pytest.raises(NotImplementedError, match="DTensor"):
        from torchestimator.keras.dtensor.experimental import LayoutMap  # noqa: F401
    with pytest.raises(AttributeError):
        tf.keras.dtensor.experimental.NoSuchThing  # noqa: B018


def test_export_namespace():
    assert tf.keras.export.ExportArchive.__name__ == "ExportArchive"
