"""Every layer of tf.keras.layers the package provides, in its main configurations, against
tf.keras 2.15's numbers (fixtures/layers.npz, made by tools/make_tf_parity_fixtures.py):
TF's weights set on our layer (get_weights() order), TF's input, TF's output; in training
mode where it is deterministic (BatchNormalization: batch statistics and moving averages)."""

import pytest
from _tf_parity import TOLERANCE, WEIGHT_LAYOUT_DIFFERENCES, load, run_layer, scaled_error

import torchestimator as tf

MANIFEST, ARRAYS = load("layers")


NOT_COVERED = {
    "Layer": "the base class",
    "Input": "a function", "InputLayer": "no computation", "InputSpec": "not a layer",
    "Lambda": "runs a Python function (its serialization is tested in tests/keras/layers)",
    "DenseFeatures": "a feature-column layer (tests/feature_column)",
    "AbstractRNNCell": "an abstract base class", "Wrapper": "an abstract base class",
    **{name: "TF-recorded cases in tests/keras/layers/image_preprocessing" for name in (
        "CenterCrop", "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip",
        "RandomHeight", "RandomRotation", "RandomTranslation", "RandomWidth", "RandomZoom",
        "Resizing")},
    **{name: "TF-recorded cases in tests/keras/layers/preprocessing" for name in (
        "Discretization", "HashedCrossing", "TextVectorization")},
}


def _nested_classes(value):
    if isinstance(value, dict):
        found = {value["__layer__"]} if "__layer__" in value else set()
        return found.union(*(_nested_classes(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_nested_classes(v) for v in value))
    return set()


def test_fixture_covers_every_exported_layer():
    covered = {entry["class"] for entry in MANIFEST}.union(*(_nested_classes(e["kwargs"]) for e in MANIFEST))
    covered |= {entry["class"] for entry in load("layers_31")[0]}  # test_parity_layers_31.py
    exported = {n for n in dir(tf.keras.layers) if n[0].isupper()}
    classes = {getattr(tf.keras.layers, n) for n in exported - set(NOT_COVERED)}
    covered_classes = {getattr(tf.keras.layers, n) for n in covered}
    missing = sorted(c.__name__ for c in classes - covered_classes)  # aliases (MaxPool2D) are the same class
    assert not missing, f"layers without a TF parity case: {missing}"


def test_fixture_covers_every_layer_family():
    covered = {entry["class"] for entry in MANIFEST}
    for name in ("Dense", "Embedding", "Conv2D", "LSTM", "GRU", "MultiHeadAttention", "BatchNormalization",
                 "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "StringLookup", "Bidirectional"):
        assert name in covered
    # every case has TF's outputs and, for layers with weights, TF's weights
    for entry in MANIFEST:
        assert f"{entry['id']}/out0" in ARRAYS
        assert all(f"{entry['id']}/w{i}" in ARRAYS for i in range(entry["n_w"]))


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_layer_matches_tf(entry):
    tf.keras.backend.clear_session()
    for name, ours, theirs in run_layer(entry, ARRAYS):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} ({entry['class']} {entry['kwargs']}): {name} differs from TF by {err:.3g}"


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_layer_from_tf_config_matches_tf(entry):
    """The layer made by `from_config` of TF's `get_config()` (what a migrated model's config
    holds) gives TF's numbers too."""
    tf.keras.backend.clear_session()
    for name, ours, theirs in run_layer(entry, ARRAYS, from_tf_config=True):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} from TF's config: {name} differs from TF by {err:.3g}"


def test_weight_layout_differences_are_named_cases():
    ids = {entry["id"] for entry in MANIFEST}
    assert set(WEIGHT_LAYOUT_DIFFERENCES) <= ids
