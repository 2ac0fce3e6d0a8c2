"""`SpectralNormalization`: weights (the wrapped layer's, then the non-trainable `vector_u`),
training-only normalization of the kernel by its largest singular value (power iteration),
config with the serialized wrapped layer, `.keras` round trip, errors. Values against TF 2.15
(kernel and vector_u after a training call): tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_weights_order_and_trainability():
    sn = layers.SpectralNormalization(layers.Dense(3))
    sn(torch.randn(2, 5))
    assert [w.name.split("/")[-1] for w in sn.weights] == ["kernel:0", "bias:0", "vector_u:0"]
    assert [tuple(w.shape) for w in sn.weights] == [(5, 3), (3,), (1, 3)]
    assert len(sn.trainable_weights) == 2 and len(sn.non_trainable_weights) == 1
    assert sn.kernel is sn.layer.kernel


def test_inference_leaves_the_kernel_alone():
    sn = layers.SpectralNormalization(layers.Dense(3))
    x = torch.randn(2, 5)
    sn(x)
    before = sn.layer.kernel.detach().clone()
    y = sn(x)
    torch.testing.assert_close(sn.layer.kernel.detach(), before)
    torch.testing.assert_close(y, sn.layer(x))


def test_training_drives_the_spectral_norm_to_one():
    sn = layers.SpectralNormalization(layers.Conv2D(4, 3), power_iterations=5)
    x = torch.randn(2, 6, 6, 3)
    sn(x)
    with torch.no_grad():
        sn.layer.kernel.mul_(10.0)
    for _ in range(10):
        y = sn(x, training=True)
    sigma = torch.linalg.matrix_norm(sn.layer.kernel.detach().reshape(-1, 4), ord=2)
    assert sigma.item() == pytest.approx(1.0, abs=1e-3)
    torch.testing.assert_close(y, sn.layer(x))
    assert torch.linalg.vector_norm(sn.vector_u).item() == pytest.approx(1.0, abs=1e-5)


def test_zero_kernel_is_left_as_is():
    sn = layers.SpectralNormalization(layers.Dense(2, kernel_initializer="zeros"))
    x = torch.randn(1, 3)
    sn(x, training=True)
    assert torch.all(sn.layer.kernel == 0)


def test_embedding_is_normalized_too():
    sn = layers.SpectralNormalization(layers.Embedding(6, 3))
    sn(torch.tensor([[1, 2]]), training=True)
    assert tuple(sn.vector_u.shape) == (1, 3)


def test_fit_normalizes_and_predict_does_not():
    model = tf.keras.Sequential([layers.SpectralNormalization(layers.Dense(2), input_shape=(3,))])
    model.compile("sgd", "mse")
    x = torch.randn(8, 3).numpy()
    with torch.no_grad():
        model.layers[0].layer.kernel.mul_(5.0)
    before = model.layers[0].layer.kernel.detach().clone()
    model.predict(x, verbose=0)
    torch.testing.assert_close(model.layers[0].layer.kernel.detach(), before)
    model.fit(x, torch.zeros(8, 2).numpy(), epochs=1, batch_size=8, verbose=0)
    assert torch.linalg.matrix_norm(model.layers[0].layer.kernel.detach(), ord=2).item() < 2.0


def test_config_and_keras_round_trip(tmp_path):
    sn = layers.SpectralNormalization(layers.Dense(3, activation="relu"), power_iterations=2)
    config = sn.get_config()
    assert config["power_iterations"] == 2 and config["layer"]["class_name"] == "Dense"
    check_layer(layers.SpectralNormalization, {"layer": layers.Dense(3, activation="relu"), "power_iterations": 2},
                (2, 4), expected_output_shape=(2, 3), tmp_dir=tmp_path)
    layer = check_layer(layers.SpectralNormalization, {"layer": layers.Dense(2)}, (2, 4), tmp_dir=tmp_path)
    assert [w.name.split("/")[-1] for w in layer.weights][-1] == "vector_u:0"


def test_errors():
    with pytest.raises(ValueError, match="power_iterations"):
        layers.SpectralNormalization(layers.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match="not a supported layer type"):
        layers.SpectralNormalization("dense")
    with pytest.raises(ValueError, match="nor 'embeddings'"):
        layers.SpectralNormalization(layers.Flatten())(torch.randn(2, 3, 2))
