"""`Identity`: returns its input (any nest), keeps masks; config and `.keras` round trips."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

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
    check_layer(layers.Identity, {"name": "idt"}, (2, 3), expected_output_shape=(2, 3), tmp_dir=tmp_path)
    check_layer(layers.Identity, {}, (2, 3, 4), supports_masking=True, tmp_dir=tmp_path)
