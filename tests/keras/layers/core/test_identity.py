"""`Identity`: returns its input (any nest), keeps masks; config and `.keras` round trips."""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from _layers31_checks import config_round_trip, keras_round_trip  # noqa: E402

import torchestimator as tf  # noqa: E402

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_returns_input_unchanged():
    x = torch.randn(2, 3)
    layer = layers.Identity(name="same")
    assert layer(x) is x
    nested = {"a": x, "b": [x, x]}
    assert layer(nested)["b"][1] is x
    assert layer.compute_output_shape((None, 3)) == (None, 3)
    assert layer.weights == []


def test_keeps_the_mask():
    inp = tf.keras.Input((4,), dtype="int64")
    emb = layers.Embedding(5, 2, mask_zero=True)(inp)
    out = layers.Identity()(emb)
    model = tf.keras.Model(inp, out)
    y = model(torch.tensor([[1, 2, 0, 0]]))
    assert y._keras_mask.tolist() == [[True, True, False, False]]


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.Identity(name="idt")
    assert layer.get_config()["name"] == "idt"
    x = torch.randn(2, 3)
    config_round_trip(layer, x)
    keras_round_trip(layers.Identity(), x, tmp_path)
