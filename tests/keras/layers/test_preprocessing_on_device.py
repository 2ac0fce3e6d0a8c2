"""Preprocessing layers on the device of their input: each layer's output is on the input's
device and equals what it gives on the CPU (CUDA cases run where a GPU is present)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

L = tf.keras.layers
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]
IMAGES = torch.from_numpy(np.random.default_rng(0).uniform(0, 255, size=(2, 8, 10, 3)).astype(np.float32))


def _adapted(layer, data):
    layer.adapt(data)
    return layer


LAYERS = {
    "Rescaling": lambda: L.Rescaling(1 / 255),
    "Resizing": lambda: L.Resizing(4, 5),
    "CenterCrop": lambda: L.CenterCrop(4, 4),
    "RandomFlip": lambda: L.RandomFlip(seed=1),
    "RandomRotation": lambda: L.RandomRotation(0.2, seed=1),
    "RandomZoom": lambda: L.RandomZoom(0.2, seed=1),
    "RandomTranslation": lambda: L.RandomTranslation(0.1, 0.1, seed=1),
    "RandomContrast": lambda: L.RandomContrast(0.3, seed=1),
    "RandomBrightness": lambda: L.RandomBrightness(0.3, seed=1),
    "RandomCrop": lambda: L.RandomCrop(4, 4, seed=1),
    "Normalization": lambda: _adapted(L.Normalization(), IMAGES),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(LAYERS))
@pytest.mark.parametrize("training", [False, True])
def test_image_layers_follow_their_input_device(name, device, training):
    layer = LAYERS[name]()
    out = layer(IMAGES.to(device), training=training)
    assert out.device.type == device
    if not training or name in ("Rescaling", "Resizing", "CenterCrop", "Normalization"):
        cpu = LAYERS[name]()(IMAGES, training=training)
        np.testing.assert_allclose(out.cpu().numpy(), cpu.numpy(), rtol=1e-5, atol=1e-4)
    else:
        assert torch.isfinite(out).all()


@pytest.mark.parametrize("device", DEVICES)
def test_numeric_and_category_layers_follow_their_input_device(device):
    values = torch.tensor([[0.5], [1.5], [2.5], [9.0]])
    disc = _adapted(L.Discretization(num_bins=3), values)
    assert disc(values.to(device)).device.type == device
    ids = torch.tensor([[1], [2], [7]])
    lookup = L.IntegerLookup(vocabulary=[1, 2, 3])
    encoded = L.CategoryEncoding(num_tokens=5, output_mode="one_hot")
    assert lookup(ids.to(device)).device.type == device
    assert encoded(lookup(ids.to(device))).device.type == device
    crossing = L.HashedCrossing(num_bins=7)
    assert crossing((ids.to(device), ids.to(device))).device.type == device
    assert lookup(ids.to(device)).cpu().tolist() == lookup(ids).tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_string_layers_feed_a_model_on_the_device(device):
    vectorize = _adapted(L.TextVectorization(max_tokens=20, output_sequence_length=4), ["a b c", "b c d", "c d e"])
    model = tf.keras.Sequential([L.Embedding(20, 3), L.GlobalAveragePooling1D(), L.Dense(1)])
    model.to(device)
    ids = vectorize(np.array(["a b", "e d c"]))
    out = model(ids.to(device))
    assert out.device.type == device and tuple(out.shape) == (2, 1)
