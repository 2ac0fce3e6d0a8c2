"""The random image layers: deterministic cases against TensorFlow 2.15 (a factor range of
one value makes TF draw that value; fixtures from
`tools/make_tf_image_preprocessing_fixtures.py`), and the distributional contract of the
random draws (bounds, per-image vs per-batch, seeds, inference = identity)."""

import math
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

L = tf.keras.layers
FIXTURES = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "tf_image_preprocessing.npz"))
X = FIXTURES["layer/x"]  # (2, 6, 8, 3) in [0, 255)

TF_LAYERS = {
    "rotation": lambda: L.RandomRotation((0.05, 0.05)),
    "rotation_neg_constant_nearest": lambda: L.RandomRotation(
        (-0.1, -0.1), fill_mode="constant", interpolation="nearest", fill_value=7.0),
    "rotation_wrap": lambda: L.RandomRotation((0.3, 0.3), fill_mode="wrap"),
    "translation": lambda: L.RandomTranslation((0.2, 0.2), (-0.1, -0.1)),
    "translation_nearest": lambda: L.RandomTranslation(
        (-0.35, -0.35), (0.4, 0.4), fill_mode="nearest"),
    "zoom": lambda: L.RandomZoom((0.3, 0.3), (-0.2, -0.2)),
    "zoom_same": lambda: L.RandomZoom((-0.25, -0.25), fill_mode="constant"),
    "brightness": lambda: L.RandomBrightness((0.1, 0.1)),
    "brightness_unit": lambda: L.RandomBrightness((-0.3, -0.3), value_range=(0, 1)),
    "height": lambda: L.RandomHeight((0.5, 0.5)),
    "height_nearest": lambda: L.RandomHeight((-0.4, -0.4), interpolation="nearest"),
    "width": lambda: L.RandomWidth((0.3, 0.3), interpolation="bicubic"),
    "width_area": lambda: L.RandomWidth((-0.45, -0.45), interpolation="area"),
    "crop_full": lambda: L.RandomCrop(6, 8),
}
ALL_RANDOM = {
    "RandomFlip": lambda seed=None: L.RandomFlip(seed=seed),
    "RandomRotation": lambda seed=None: L.RandomRotation(0.2, seed=seed),
    "RandomTranslation": lambda seed=None: L.RandomTranslation(0.2, 0.3, seed=seed),
    "RandomZoom": lambda seed=None: L.RandomZoom(0.3, seed=seed),
    "RandomContrast": lambda seed=None: L.RandomContrast(0.5, seed=seed),
    "RandomBrightness": lambda seed=None: L.RandomBrightness(0.3, seed=seed),
    "RandomHeight": lambda seed=None: L.RandomHeight(0.4, seed=seed),
    "RandomWidth": lambda seed=None: L.RandomWidth(0.4, seed=seed),
    "RandomCrop": lambda seed=None: L.RandomCrop(4, 5, seed=seed),
}


@pytest.mark.parametrize("name", sorted(TF_LAYERS))
def test_one_valued_ranges_match_tensorflow(name):
    out = TF_LAYERS[name]()(torch.tensor(X), training=True)
    expected = FIXTURES[f"layer/{name}"]
    assert tuple(out.shape) == expected.shape and out.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=2e-3)


def test_brightness_on_unit_images_matches_tensorflow():
    layer = L.RandomBrightness((-0.3, -0.3), value_range=(0, 1))
    out = layer(torch.tensor(FIXTURES["layer/x_unit"]), training=True)
    np.testing.assert_allclose(out.numpy(), FIXTURES["layer/brightness_unit_input"], atol=1e-6)


def test_random_flip_flips_each_image_one_of_the_ways_tensorflow_flips():
    h, v = FIXTURES["flip/horizontal"], FIXTURES["flip/vertical"]
    hv = X[:, ::-1, ::-1]
    outs = {"horizontal": (X, h), "vertical": (X, v), "horizontal_and_vertical": (X, h, v, hv)}
    for mode, allowed in outs.items():
        layer = L.RandomFlip(mode, seed=1)
        seen = set()
        for _ in range(20):
            out = layer(torch.tensor(X), training=True).numpy()
            for i in range(2):
                kinds = [k for k, a in enumerate(allowed) if np.array_equal(out[i], a[i])]
                assert kinds, f"{mode}: image {i} is not an allowed flip"
                seen.add(kinds[0])
        assert seen == set(range(len(allowed))), mode


def test_random_flip_flips_about_half_of_a_batch_independently():
    x = torch.arange(4, dtype=torch.float32).reshape(1, 1, 4, 1).repeat(2000, 1, 1, 1)
    out = L.RandomFlip("horizontal", seed=3)(x, training=True)
    flipped = (out[:, 0, 0, 0] == 3).float()
    assert 0.45 < float(flipped.mean()) < 0.55
    unbatched = L.RandomFlip("vertical", seed=4)(x[0], training=True)
    assert tuple(unbatched.shape) == (1, 4, 1)


@pytest.mark.parametrize("factor,bounds", [(0.1, (-0.1, 0.1)), ((-0.05, 0.2), (-0.05, 0.2))])
def test_rotation_angles_stay_within_the_factor(factor, bounds):
    layer = L.RandomRotation(factor, seed=7)
    matrices = layer._matrices(4000, 6, 8, torch.device("cpu"))
    angles = torch.atan2(matrices[:, 3], matrices[:, 0]).numpy() / (2 * math.pi)
    assert angles.min() >= bounds[0] - 1e-6 and angles.max() <= bounds[1] + 1e-6
    assert angles.min() < bounds[0] + 0.01 and angles.max() > bounds[1] - 0.01
    assert len(np.unique(angles.round(6))) > 3000  # one angle per image


def test_translation_and_zoom_draws_stay_within_their_factors():
    shift = L.RandomTranslation((-0.2, 0.1), 0.3, seed=1)._matrices(3000, 10, 20, torch.device("cpu"))
    dx, dy = -shift[:, 2].numpy(), -shift[:, 5].numpy()
    assert dy.min() >= -2.0 - 1e-5 and dy.max() <= 1.0 + 1e-5 and dy.min() < -1.9
    assert dx.min() >= -6.0 - 1e-5 and dx.max() <= 6.0 + 1e-5 and dx.max() > 5.9
    zoom = L.RandomZoom(0.2, seed=1)._matrices(3000, 10, 20, torch.device("cpu"))
    np.testing.assert_array_equal(zoom[:, 0].numpy(), zoom[:, 4].numpy())  # aspect kept
    assert zoom[:, 0].min() >= 0.8 - 1e-6 and zoom[:, 0].max() <= 1.2 + 1e-6
    both = L.RandomZoom((0.1, 0.2), (-0.3, -0.1), seed=2)._matrices(3000, 10, 20, torch.device("cpu"))
    assert both[:, 4].min() >= 1.1 - 1e-6 and both[:, 4].max() <= 1.2 + 1e-6
    assert both[:, 0].min() >= 0.7 - 1e-6 and both[:, 0].max() <= 0.9 + 1e-6


def test_zero_factors_are_the_identity_in_training():
    x = torch.tensor(X)
    for layer in (L.RandomRotation(0.0), L.RandomTranslation(0.0, 0.0), L.RandomZoom(0.0),
                  L.RandomBrightness(0.0), L.RandomHeight(0.0), L.RandomWidth(0.0),
                  L.RandomCrop(6, 8)):
        np.testing.assert_allclose(layer(x, training=True).numpy(), X, atol=1e-4,
                                   err_msg=type(layer).__name__)


def test_random_brightness_draws_one_delta_per_image_within_factor_and_clips():
    x = torch.full((500, 2, 3, 3), 100.0)
    out = L.RandomBrightness(0.2, seed=1)(x, training=True)
    delta = (out - 100.0).reshape(500, -1)
    assert torch.all(delta == delta[:, :1])  # one delta per image
    assert delta.min() >= -51.0 - 1e-4 and delta.max() <= 51.0 + 1e-4
    assert delta.min() < -45 and delta.max() > 45
    bright = L.RandomBrightness((0.5, 0.5))(torch.full((2, 2, 2, 1), 250.0), training=True)
    assert torch.all(bright == 255.0)
    dark = L.RandomBrightness((-1.0, -1.0), value_range=(-1.0, 1.0))(torch.zeros(2, 2, 1), training=True)
    assert torch.all(dark == -1.0)


def test_random_contrast_draws_one_factor_per_call_within_range_and_clips():
    gen = np.random.RandomState(0)
    x = torch.tensor(gen.uniform(50, 150, size=(3, 5, 5, 2)).astype(np.float32))
    mean = x.mean(dim=(1, 2), keepdim=True)
    layer = L.RandomContrast((0.3, 0.4), seed=2)
    factors = []
    for _ in range(200):
        out = layer(x, training=True)
        ratio = (out - mean) / (x - mean)
        assert torch.allclose(ratio, ratio.reshape(-1)[0].expand_as(ratio), atol=1e-3)
        factors.append(float(ratio.reshape(-1)[0]))
    assert min(factors) >= 0.7 - 1e-3 and max(factors) <= 1.4 + 1e-3
    assert min(factors) < 0.75 and max(factors) > 1.35
    wide = torch.tensor([[[0.0], [255.0]], [[0.0], [255.0]]])  # (2, 2, 1), mean 127.5
    out = L.RandomContrast((0.0, 1.0), seed=0)(wide, training=True)
    assert out.min() >= 0 and out.max() <= 255


def test_random_contrast_with_a_zero_factor_fails_in_training_as_keras():
    layer = L.RandomContrast(0.0)
    np.testing.assert_array_equal(layer(torch.tensor(X), training=False).numpy(), X)
    with pytest.raises(ValueError, match="upper must be > lower"):
        layer(torch.tensor(X), training=True)


def test_random_height_and_width_resize_the_whole_batch_within_range():
    x = torch.rand(2, 20, 30, 1)
    heights = {tuple(L.RandomHeight((-0.5, 0.25), seed=s)(x, training=True).shape) for s in range(40)}
    assert all(s[0] == 2 and 10 <= s[1] <= 25 and s[2:] == (30, 1) for s in heights)
    assert len(heights) > 5
    widths = {tuple(L.RandomWidth(0.2, seed=s)(x[0], training=True).shape) for s in range(40)}
    assert all(24 <= s[1] <= 36 and s[0] == 20 for s in widths) and len(widths) > 5


@pytest.mark.parametrize("name", sorted(ALL_RANDOM))
def test_inference_is_the_identity(name):
    layer = ALL_RANDOM[name]()
    x = torch.tensor(X[:, :, :, :])
    out = layer(x, training=False)
    if name == "RandomCrop":
        assert tuple(out.shape) == (2, 4, 5, 3)
    else:
        np.testing.assert_array_equal(out.numpy(), X)


@pytest.mark.parametrize("name", sorted(ALL_RANDOM))
def test_same_seed_same_outputs_and_calls_differ(name):
    make = ALL_RANDOM[name]
    x = torch.tensor(X)
    a, b = make(seed=11), make(seed=11)
    first = [a(x, training=True).numpy() for _ in range(3)]
    second = [b(x, training=True).numpy() for _ in range(3)]
    for u, v in zip(first, second):
        np.testing.assert_array_equal(u, v)
    tries = [make(seed=s)(x, training=True).numpy() for s in range(6)]
    assert any(t.shape != first[0].shape or not np.array_equal(t, first[0]) for t in tries)
    unseeded = make()(x, training=True)
    assert unseeded.dtype == torch.float32


@pytest.mark.parametrize("name", sorted(ALL_RANDOM))
def test_a_call_with_no_training_flag_augments_as_keras_2_15(name):
    layer = ALL_RANDOM[name](seed=5)
    twin = ALL_RANDOM[name](seed=5)
    x = torch.tensor(X)
    np.testing.assert_array_equal(layer(x).numpy(), twin(x, training=True).numpy())


def test_integer_images_become_floats():
    x8 = X.astype(np.uint8)
    for name, make in ALL_RANDOM.items():
        out = make(seed=1)(torch.tensor(x8), training=True)
        assert out.dtype == torch.float32, name
    assert L.RandomFlip()(torch.tensor(x8), training=False).dtype == torch.float32
    # RandomHeight/RandomWidth pass the input through untouched at inference (as Keras).
    assert L.RandomHeight(0.2)(torch.tensor(x8), training=False).dtype == torch.uint8


def test_unbatched_images_keep_rank_3():
    x = torch.tensor(X[0])
    for name, make in ALL_RANDOM.items():
        out = make(seed=1)(x, training=True)
        assert out.dim() == 3 and out.shape[-1] == 3, name


def test_constructor_errors_use_keras_messages():
    with pytest.raises(ValueError, match="RandomFlip layer .* received an unknown mode argument diagonal"):
        L.RandomFlip("diagonal")
    with pytest.raises(ValueError, match=r"`factor` argument cannot have a negative value. Received: factor=\(0.3, 0.1\)"):
        L.RandomRotation((0.3, 0.1))
    with pytest.raises(NotImplementedError, match="Unknown `fill_mode` mirror"):
        L.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(NotImplementedError, match="Unknown `interpolation` bicubic"):
        L.RandomZoom(0.1, interpolation="bicubic")
    with pytest.raises(ValueError, match=r"`height_factor` argument must have values between \[-1, 1\]"):
        L.RandomTranslation(1.5, 0.1)
    with pytest.raises(ValueError, match="`width_factor` cannot have upper bound less than lower bound"):
        L.RandomTranslation(0.1, (0.2, -0.2))
    with pytest.raises(ValueError, match=r"`height_factor` argument must have values between \[-1, 1\]"):
        L.RandomZoom((-1.5, 0.2))
    with pytest.raises(ValueError, match="`width_factor` argument must have values larger than -1"):
        L.RandomZoom(0.2, (-2.0, 0.1))
    with pytest.raises(ValueError, match="`factor` argument cannot have negative values or values greater than 1"):
        L.RandomContrast(-0.1)
    with pytest.raises(ValueError, match=r"The `factor` argument should be a number \(or a list of two numbers\) in the range \[-1.0, 1.0\]. Got 1.5"):
        L.RandomBrightness(1.5)
    with pytest.raises(ValueError, match="The `value_range` argument should be a list of two numbers. Got 255"):
        L.RandomBrightness(0.1, value_range=255)
    with pytest.raises(ValueError, match="`factor` argument cannot have an upper bound lesser than the lower bound"):
        L.RandomHeight((0.3, 0.1))
    with pytest.raises(ValueError, match="`factor` argument must have values larger than -1"):
        L.RandomWidth((-1.5, 0.1))
    with pytest.raises(NotImplementedError, match="Value not recognized for `interpolation`: cubic"):
        L.RandomWidth(0.1, interpolation="cubic")
    with pytest.raises(ValueError, match=r"`factor` must be a number or a tuple of two numbers \(lower, upper\). Received: factor='big'"):
        L.RandomRotation("big")


@pytest.mark.parametrize("name", sorted(ALL_RANDOM))
def test_wrong_rank_inputs_raise_in_training(name):
    with pytest.raises(ValueError, match=r"Expected the input image to be rank 3 or 4. Got inputs.shape = \(6, 8\)"):
        ALL_RANDOM[name]()(torch.zeros(6, 8), training=True)
