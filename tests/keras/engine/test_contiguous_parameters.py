"""A Keras model's parameters are contiguous, as a torch module's are: torch's utilities that
flatten parameters take them (`parameters_to_vector`, FSDP2's `fully_shard`, which refuses a
non-contiguous parameter: 'FSDP does not support non-contiguous parameters yet'). Storing
convolution kernels in the order cuDNN reads them (channels-last) would save a copy of each
kernel per step on a GPU, but would break these, so the kernels keep TF's contiguous layout."""

from __future__ import annotations

import torch

import torchestimator as tf

L = tf.keras.layers


def test_every_parameter_is_contiguous_and_flattens():
    model = tf.keras.Sequential([
        L.Conv1D(4, 3, input_shape=(8, 2)), L.Reshape((6, 4, 1)), L.Conv2D(2, 3),
        L.DepthwiseConv2D(2), L.SeparableConv2D(2, 1), L.Conv2DTranspose(2, 2),
        L.BatchNormalization(), L.Flatten(), L.Dense(1)])
    model(tf.constant(torch.zeros(2, 8, 2).numpy()))
    for weight in model.weights:
        assert weight.is_contiguous(), weight.name
    flat = torch.nn.utils.parameters_to_vector(model.parameters())
    assert flat.numel() == sum(p.numel() for p in model.parameters())
