"""The image preprocessing layers in models and pipelines: an augmentation front trained with
`fit` (identity in `predict`), `tf.data` `map` with `training=True` (the image-classification
tutorial's shape), symbolic shapes, `get_config`/`from_config`, `.keras` save/load, devices."""

import json

import numpy as np
import pytest
import torch

import torchestimator as tf

L = tf.keras.layers

CONFIG_LAYERS = [
    lambda: L.Resizing(5, 7, interpolation="bicubic", crop_to_aspect_ratio=True),
    lambda: L.CenterCrop(4, 6),
    lambda: L.RandomCrop(4, 6, seed=1),
    lambda: L.RandomFlip("vertical", seed=2),
    lambda: L.RandomRotation((-0.1, 0.2), fill_mode="constant", interpolation="nearest", seed=3,
                             fill_value=1.5),
    lambda: L.RandomTranslation(0.1, (-0.2, 0.3), fill_mode="wrap", seed=4),
    lambda: L.RandomZoom((0.1, 0.3), None, fill_mode="nearest", seed=5),
    lambda: L.RandomContrast((0.2, 0.5), seed=6),
    lambda: L.RandomBrightness(0.4, value_range=(1.0, 0.0), seed=7),
    lambda: L.RandomHeight((0.1, 0.2), interpolation="area", seed=8),
    lambda: L.RandomWidth(0.3, interpolation="nearest", seed=9),
]


def _planted_images(n=96, seed=0):
    """Dark images are class 0, bright ones class 1: a task every augmentation keeps."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=(n, 1)).astype("float32")
    x = rng.uniform(0.0, 0.45, size=(n, 8, 8, 1)).astype("float32") + 0.5 * y[:, :, None, None]
    return x, y


def _augmented_classifier(seed=0):
    tf.keras.utils.set_random_seed(seed)
    return tf.keras.Sequential([
        tf.keras.Input((8, 8, 1)),
        L.RandomFlip("horizontal", seed=1),
        L.RandomRotation(0.1, seed=2),
        L.RandomZoom(0.1, seed=3),
        L.RandomTranslation(0.1, 0.1, seed=4),
        L.RandomBrightness(0.05, value_range=(0, 1), seed=5),
        L.Flatten(),
        L.Dense(1, activation="sigmoid"),
    ])


def test_fit_trains_through_the_augmentation_and_predict_skips_it():
    x, y = _planted_images()
    model = _augmented_classifier()
    model.compile(tf.keras.optimizers.Adam(0.05), "binary_crossentropy", metrics=["accuracy"])
    flip = model.layers[0]
    assert not flip._draws._noise._generators  # nothing drawn yet
    history = model.fit(x, y, epochs=15, batch_size=16, verbose=0)
    assert history.history["accuracy"][-1] > 0.9
    assert flip._draws._noise._generators  # fit ran the augmentation
    state = {d: g.get_state() for d, g in flip._draws._noise._generators.items()}
    first = model.predict(x, verbose=0)
    np.testing.assert_array_equal(model.predict(x, verbose=0), first)  # no randomness
    for d, g in flip._draws._noise._generators.items():
        assert torch.equal(g.get_state(), state[d])
    # predict equals the classifier head alone: the front is the identity.
    head = tf.keras.Sequential([tf.keras.Input((8, 8, 1)), L.Flatten(), L.Dense(1, activation="sigmoid")])
    head.layers[-1].set_weights(model.layers[-1].get_weights())
    np.testing.assert_allclose(head.predict(x, verbose=0), first, rtol=1e-6)
    assert model.evaluate(x, y, verbose=0)[1] > 0.9


def test_a_model_called_without_training_augments_as_keras_2_15():
    model = tf.keras.Sequential([tf.keras.Input((6, 8, 3)), L.RandomFlip(seed=1), L.RandomRotation(0.2, seed=1)])
    x = torch.rand(4, 6, 8, 3)
    assert not torch.equal(model(x), x)
    np.testing.assert_array_equal(model(x, training=False).numpy(), x.numpy())


def test_tf_data_map_with_training_true_augments_each_batch():
    x, y = _planted_images(32)
    augment = tf.keras.Sequential([L.RandomFlip("horizontal", seed=1), L.RandomRotation(0.2, seed=2)])
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).map(
        lambda images, labels: (augment(images, training=True), labels),
        num_parallel_calls=tf.data.AUTOTUNE,
    ).prefetch(tf.data.AUTOTUNE)
    batches = list(ds)
    assert len(batches) == 4
    out = np.concatenate([np.asarray(b[0]) for b in batches])
    labels = np.concatenate([np.asarray(b[1]) for b in batches])
    assert out.shape == x.shape and out.dtype == np.float32
    np.testing.assert_array_equal(labels, y)
    assert np.abs(out - x).max() > 0.1  # augmented
    # An unbatched pipeline maps one image at a time (rank 3).
    single = tf.data.Dataset.from_tensor_slices((x, y)).map(
        lambda image, label: (L.RandomZoom(0.2, seed=3)(image, training=True), label))
    first = next(iter(single))
    assert tuple(first[0].shape) == (8, 8, 1)
    # A model fits on the augmented dataset.
    model = tf.keras.Sequential([tf.keras.Input((8, 8, 1)), L.Flatten(), L.Dense(1, activation="sigmoid")])
    model.compile(tf.keras.optimizers.Adam(0.05), "binary_crossentropy")
    model.fit(ds, epochs=2, verbose=0)


def test_symbolic_shapes_in_a_functional_model():
    inputs = tf.keras.Input((None, 12, 3), dtype="uint8")
    h = L.RandomHeight(0.2)(inputs)
    assert tuple(h.shape) == (None, None, 12, 3)
    w = L.Resizing(6, 7)(inputs)
    assert tuple(w.shape) == (None, 6, 7, 3)
    c = L.CenterCrop(4, 5)(L.RandomFlip()(inputs))
    assert tuple(c.shape) == (None, 4, 5, 3)
    model = tf.keras.Model(inputs, [h, c])
    out_h, out_c = model.predict(np.zeros((2, 10, 12, 3), np.uint8), verbose=0)
    assert out_h.shape == (2, 10, 12, 3) and out_c.shape == (2, 4, 5, 3)


@pytest.mark.parametrize("make", CONFIG_LAYERS)
def test_config_round_trips_through_json(make):
    layer = make()
    config = json.loads(json.dumps(tf.keras.layers.serialize(layer)))
    again = tf.keras.layers.deserialize(config)
    assert type(again) is type(layer)
    assert again.get_config() == json.loads(json.dumps(layer.get_config()))
    x = torch.rand(2, 9, 11, 3)
    np.testing.assert_array_equal(again(x, training=True).numpy(), make()(x, training=True).numpy())


def test_keras_archive_save_and_load(tmp_path):
    model = tf.keras.Sequential([
        tf.keras.Input((12, 14, 3)),
        L.Resizing(10, 12, interpolation="bilinear"),
        L.RandomCrop(8, 10, seed=1),
        L.RandomFlip("horizontal", seed=2),
        L.RandomRotation(0.1, fill_mode="constant", seed=3),
        L.RandomTranslation(0.1, 0.1, seed=4),
        L.RandomZoom(0.1, seed=5),
        L.RandomContrast(0.2, seed=6),
        L.RandomBrightness(0.1, seed=7),
        L.CenterCrop(6, 8),
        L.Flatten(),
        L.Dense(2),
    ])
    x = np.random.default_rng(0).uniform(0, 255, size=(3, 12, 14, 3)).astype("float32")
    path = str(tmp_path / "augment.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert [type(a).__name__ for a in loaded.layers] == [type(a).__name__ for a in model.layers]
    for a, b in zip(model.layers, loaded.layers):
        assert a.get_config() == b.get_config()
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)


def test_layers_are_in_the_keras_namespace():
    for name in ("Resizing", "CenterCrop", "RandomCrop", "RandomFlip", "RandomRotation",
                 "RandomTranslation", "RandomZoom", "RandomContrast", "RandomBrightness",
                 "RandomHeight", "RandomWidth"):
        cls = getattr(tf.keras.layers, name)
        assert cls.__name__ == name and cls.__doc__


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_layers_run_on_the_inputs_device():
    x = torch.rand(2, 9, 11, 3, device="cuda") * 255
    for make in CONFIG_LAYERS:
        layer = make()
        for training in (True, False):
            out = layer(x, training=training)
            assert out.device.type == "cuda", type(layer).__name__
    # Same seed, same draws on one device: reproducible on the GPU too.
    a = L.RandomRotation(0.3, seed=1)(x, training=True)
    b = L.RandomRotation(0.3, seed=1)(x, training=True)
    torch.testing.assert_close(a, b)
    model = _augmented_classifier().to("cuda")
    xs, ys = _planted_images(32)
    model.compile("adam", "binary_crossentropy")
    model.fit(xs, ys, epochs=1, verbose=0)


def test_the_torch_mode_decides_when_nothing_else_does():
    """A new augmentation front augments (Keras' default); model.eval() stops it and
    model.train() resumes it (a plain PyTorch loop); an explicit training= and the Keras fronts
    win over the mode."""
    import numpy as np

    import torchestimator as tf

    aug = tf.keras.Sequential([tf.keras.layers.RandomFlip("horizontal", seed=1),
                               tf.keras.layers.RandomRotation(0.2, seed=2),
                               tf.keras.layers.RandomContrast(0.5, seed=3)])
    x = np.random.RandomState(0).rand(4, 8, 8, 3).astype("float32")
    assert not np.allclose(aug(x).numpy(), x)
    aug.eval()
    np.testing.assert_array_equal(aug(x).numpy(), x)
    assert not np.allclose(aug(x, training=True).numpy(), x)
    aug.train()
    assert not np.allclose(aug(x).numpy(), x)
    np.testing.assert_array_equal(aug(x, training=False).numpy(), x)
    np.testing.assert_array_equal(aug.predict(x, verbose=0), x)
    assert all(layer.training for layer in aug.layers)  # predict left the modes as it found them
