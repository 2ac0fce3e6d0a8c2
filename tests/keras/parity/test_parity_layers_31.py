"""The layers added for issue 31 (AlphaDropout, Conv1D/3DTranspose, Cropping3D, DepthwiseConv1D,
EinsumDense, Identity, LocallyConnected1D/2D, SeparableConv1D, SpatialDropout3D,
SpectralNormalization, ThresholdedReLU, UpSampling3D, ZeroPadding3D) against tf.keras 2.15's
numbers (fixtures/layers_31.npz, made by tools/make_tf_layer_fixtures_31.py): TF's weights set on
our layer in get_weights() order, TF's input, TF's output (and the weights after a training call:
SpectralNormalization's normalized kernel and vector_u)."""

import pytest
from _tf_parity import TOLERANCE, load, run_layer, scaled_error

import torchestimator as tf

MANIFEST, ARRAYS = load("layers_31")

ADDED = {
    "AlphaDropout", "Conv1DTranspose", "Conv3DTranspose", "Cropping3D", "DepthwiseConv1D",
    "EinsumDense", "Identity", "LocallyConnected1D", "LocallyConnected2D", "SeparableConv1D",
    "SpatialDropout3D", "SpectralNormalization", "ThresholdedReLU", "UpSampling3D", "ZeroPadding3D",
}


def test_fixture_covers_the_added_layers():
    covered = {getattr(tf.keras.layers, e["class"]) for e in MANIFEST}
    assert {getattr(tf.keras.layers, n) for n in ADDED} <= covered


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_layer_matches_tf(entry):
    tf.keras.backend.clear_session()
    layer_names = []
    for name, ours, theirs in run_layer(entry, ARRAYS):
        layer_names.append(name)
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} ({entry['class']} {entry['kwargs']}): {name} differs from TF by {err:.3g}"
    assert layer_names


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_layer_from_tf_config_matches_tf(entry):
    """`from_config(TF's get_config())` builds the same layer."""
    tf.keras.backend.clear_session()
    for name, ours, theirs in run_layer(entry, ARRAYS, from_tf_config=True):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} from TF's config: {name} differs from TF by {err:.3g}"


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_weight_names_and_shapes_match_tf(entry):
    """Our weights have TF's names (the part after the layer scope) and shapes, in TF's order."""
    tf.keras.backend.clear_session()
    run_layer(entry, ARRAYS)  # builds
    cls = getattr(tf.keras.layers, entry["class"])
    layer = cls(**{k: _build(v) for k, v in entry["kwargs"].items()})
    import torch
    layer(torch.as_tensor(ARRAYS[f"{entry['id']}/in0"]))
    ours = [w.name.split("/")[-1].split(":")[0] for w in layer.weights]
    theirs = [n.split("/")[-1].split(":")[0] for n in entry["weight_names"]]
    assert ours == theirs
    assert [tuple(w.shape) for w in layer.weights] == [ARRAYS[f"{entry['id']}/w{i}"].shape for i in range(entry["n_w"])]


def _build(value):
    from _tf_parity import build_arg
    return build_arg(value)


# Keys where our config differs from TF's, as the package's 2D versions of these layers do
# (SpatialDropout2D, DepthwiseConv2D, SeparableConv2D): (ours only, TF's only). TF's configs
# still load (test_layer_from_tf_config_matches_tf).
CONFIG_KEY_DIFFERENCES = {
    # Keras 2.15 forgets data_format (a channels_first layer reloads as channels_last) and
    # writes Dropout's unused noise_shape
    "SpatialDropout3D": ({"data_format"}, {"noise_shape"}),
    # Keras 2.15 writes Conv's groups=1 (and, for SeparableConv, the unused kernel_* keys)
    "DepthwiseConv1D": (set(), {"groups"}),
    "SeparableConv1D": (set(), {"groups", "kernel_initializer", "kernel_regularizer", "kernel_constraint"}),
    "SeparableConvolution1D": (set(), {"groups", "kernel_initializer", "kernel_regularizer",
                                       "kernel_constraint"}),
}


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_config_keys_match_tf(entry):
    """`get_config()` has TF's keys (the wrapped layer's config of a wrapper included), but for
    the differences listed in CONFIG_KEY_DIFFERENCES."""
    tf.keras.backend.clear_session()
    layer = getattr(tf.keras.layers, entry["class"])(**{k: _build(v) for k, v in entry["kwargs"].items()})
    ours, theirs = set(layer.get_config()), set(entry["tf_config"])
    ours_only, tf_only = CONFIG_KEY_DIFFERENCES.get(entry["class"], (set(), set()))
    assert (ours - theirs, theirs - ours) == (ours_only, tf_only)
    ours, theirs = layer.get_config(), entry["tf_config"]
    if "layer" in theirs:
        assert set(ours["layer"]["config"]) == set(theirs["layer"]["config"])
