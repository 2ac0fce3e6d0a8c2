"""`tf.keras.layers` loads its layer families lazily: the name table must match them."""

import importlib
import subprocess
import sys

import pytest

from torchestimator.keras import layers


@pytest.mark.parametrize("family", sorted(layers._FAMILIES))
def test_family_table_matches_the_subpackage(family):
    module = importlib.import_module(f"torchestimator.keras.layers.{family}")
    assert sorted(layers._FAMILIES[family]) == sorted(module.__all__)


def test_every_listed_name_resolves_and_is_cached():
    for name in layers.__all__:
        value = getattr(layers, name)
        assert value is getattr(layers, name)
    assert layers.Dense.__name__ == "Dense"


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'Densse'"):
        layers.Densse  # noqa: B018


def test_a_premade_model_fn_does_not_import_every_layer_family():
    code = (
        "import sys, tempfile, numpy as np\n"
        "import torchestimator as tf\n"
        "est = tf.estimator.DNNClassifier([10], [tf.feature_column.numeric_column('x')], n_classes=2,"
        " model_dir=tempfile.mkdtemp())\n"
        "x = np.arange(8, dtype=np.float32); y = (x > 3).astype(np.int64)\n"
        "est.train(lambda: tf.data.Dataset.from_tensor_slices(({'x': x}, y)).batch(4), steps=2)\n"
        "print(sorted(m for m in sys.modules if m.startswith('torchestimator.keras.layers.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = out.strip().splitlines()[-1]
    for family in ("rnn", "attention", "preprocessing", "merging"):
        assert f"torchestimator.keras.layers.{family}'" not in loaded


def test_deserializing_a_layer_of_a_family_not_yet_loaded_works():
    code = (
        "import torchestimator as tf\n"
        "layer = tf.keras.layers.deserialize({'class_name': 'GRU', 'config': {'units': 3}})\n"
        "print(type(layer).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "GRU"


def test_serialize_round_trips_a_layer():
    dense = layers.Dense(3, activation="relu", name="d")
    again = layers.deserialize(layers.serialize(dense))
    assert type(again) is layers.Dense and again.units == 3 and again.name == "d"
