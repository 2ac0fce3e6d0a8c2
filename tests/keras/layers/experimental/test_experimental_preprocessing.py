"""`tf.keras.layers.experimental.preprocessing`: the older names are the same classes, and
`PreprocessingLayer.adapt` feeds every batch to `update_state`."""

from __future__ import annotations

import numpy as np
import torch

import torchestimator as tf

preprocessing = tf.keras.layers.experimental.preprocessing


def test_the_old_names_are_the_layers_classes():
    for name in ("Normalization", "RandomFlip", "TextVectorization", "StringLookup", "Rescaling"):
        assert getattr(preprocessing, name) is getattr(tf.keras.layers, name)
    norm = preprocessing.Normalization(axis=None)
    norm.adapt(np.array([1.0, 2.0, 3.0], "float32"))
    np.testing.assert_allclose(norm(np.array([2.0], "float32")).numpy(), [0.0], atol=1e-6)


class _Max(preprocessing.PreprocessingLayer):
    def reset_state(self):
        self.top = -np.inf
        self.batches = 0

    def update_state(self, data):
        self.top = max(self.top, float(torch.as_tensor(data).max()))
        self.batches += 1

    def call(self, inputs):
        return inputs / self.top


def test_preprocessing_layer_adapts_batch_by_batch():
    layer = _Max()
    assert not layer.is_adapted
    layer.adapt(np.arange(70, dtype="float32"), batch_size=32)
    assert layer.is_adapted and layer.batches == 3 and layer.top == 69.0
    layer.adapt(tf.data.Dataset.from_tensor_slices(np.arange(10.0)).batch(4), steps=2)
    assert layer.batches == 2 and layer.top == 7.0
    np.testing.assert_allclose(layer(np.array([3.5], "float32")).numpy(), [0.5])
