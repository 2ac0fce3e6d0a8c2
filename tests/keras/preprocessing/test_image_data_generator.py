"""`tf.keras.preprocessing.image`: ImageDataGenerator, its iterators and the image transforms,
against Keras 2.15 values recorded by tools/make_tf_preprocessing_image_fixtures.py (which also
makes the inputs: the tests load its `make_inputs` / `make_tree`)."""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.keras.preprocessing import image as kimage

HERE = os.path.dirname(__file__)
FIX = np.load(os.path.join(HERE, "fixtures", "tf_preprocessing_image.npz"))
META = json.load(open(os.path.join(HERE, "fixtures", "tf_preprocessing_image.json")))
_spec = importlib.util.spec_from_file_location(
    "_fixture_tool", os.path.join(HERE, "..", "..", "..", "tools",
                                  "make_tf_preprocessing_image_fixtures.py"))
TOOL = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(TOOL)
INP = TOOL.make_inputs()
IMG = INP["image"]


def test_public_names_match_keras():
    names = {"DirectoryIterator", "ImageDataGenerator", "Iterator", "NumpyArrayIterator",
             "apply_affine_transform", "apply_brightness_shift", "apply_channel_shift",
             "array_to_img", "img_to_array", "load_img", "random_brightness",
             "random_channel_shift", "random_rotation", "random_shear", "random_shift",
             "random_zoom", "save_img", "smart_resize"}
    assert set(kimage.__all__) == names
    assert tf.keras.preprocessing.image.ImageDataGenerator is kimage.ImageDataGenerator
    assert issubclass(kimage.Iterator, tf.keras.utils.Sequence)


# ------------------------------------------------------------------ deterministic transforms
@pytest.mark.parametrize("case", sorted(TOOL.AFFINE_CASES))
@pytest.mark.parametrize("mode", ["constant", "nearest", "reflect", "wrap"])
@pytest.mark.parametrize("order", [0, 1])
def test_apply_affine_transform_matches_keras(case, mode, order):
    got = kimage.apply_affine_transform(IMG, **TOOL.AFFINE_CASES[case], row_axis=0, col_axis=1,
                                        channel_axis=2, fill_mode=mode, cval=0.5, order=order)
    assert got.dtype == np.float32 and got.shape == IMG.shape
    np.testing.assert_allclose(got, FIX[f"affine/{case}/{mode}/{order}"], atol=1e-5)


@pytest.mark.parametrize("case", sorted(TOOL.AFFINE_CASES))
def test_apply_affine_transform_channels_first(case):
    got = kimage.apply_affine_transform(np.moveaxis(IMG, 2, 0), **TOOL.AFFINE_CASES[case])
    np.testing.assert_allclose(got, FIX[f"affine_cf/{case}"], atol=1e-5)


def test_apply_affine_transform_identity_and_errors():
    assert kimage.apply_affine_transform(IMG, row_axis=0, col_axis=1, channel_axis=2) is IMG
    with pytest.raises(ValueError, match="must be distinct"):
        kimage.apply_affine_transform(IMG, theta=3, row_axis=0, col_axis=0, channel_axis=2)
    with pytest.raises(ValueError, match="multi-channel 2D images"):
        kimage.apply_affine_transform(IMG[..., 0], theta=3)
    with pytest.raises(ValueError, match="Channels are allowed"):
        kimage.apply_affine_transform(IMG, theta=3, row_axis=0, col_axis=2, channel_axis=1)
    with pytest.raises(ValueError, match="fill_mode 'mirror'"):
        kimage.apply_affine_transform(IMG, theta=3, row_axis=0, col_axis=1, channel_axis=2,
                                      fill_mode="mirror")


def test_apply_affine_transform_higher_order_uses_scipy():
    pytest.importorskip("scipy")
    got = kimage.apply_affine_transform(IMG, theta=30, row_axis=0, col_axis=1, channel_axis=2,
                                        order=3)
    assert got.shape == IMG.shape and np.isfinite(got).all()


@pytest.mark.parametrize("i", [0, 1])
def test_apply_channel_shift(i):
    got = kimage.apply_channel_shift(IMG, TOOL.CHANNEL_SHIFTS[i], 2)
    np.testing.assert_allclose(got, FIX[f"channel_shift/{i}"], atol=1e-6)


@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("name", ["u8", "wide"])
def test_apply_brightness_shift(scale, name):
    x = IMG * 255 if name == "u8" else INP["wide"]
    np.testing.assert_allclose(kimage.apply_brightness_shift(x, 1.3, scale),
                               FIX[f"brightness/{scale}/{name}"], atol=1e-3)


@pytest.mark.parametrize("name,kw", [
    ("center_std", dict(featurewise_center=True, featurewise_std_normalization=True)),
    ("zca", dict(zca_whitening=True, zca_epsilon=0.1)),
    ("sample", dict(samplewise_center=True, samplewise_std_normalization=True, rescale=2.0)),
])
def test_fit_and_standardize(name, kw):
    gen = kimage.ImageDataGenerator(**kw)
    gen.fit(INP["batch"])
    for attr, key in (("mean", "mean"), ("std", "std"), ("zca_whitening_matrix", "zca")):
        ref = f"fit/{name}/{key}"
        if ref in FIX:
            np.testing.assert_allclose(getattr(gen, attr), FIX[ref], rtol=1e-4, atol=1e-4)
        else:
            assert getattr(gen, attr) is None
    np.testing.assert_allclose(gen.standardize(INP["batch"].copy()), FIX[f"fit/{name}/out"],
                               rtol=1e-4, atol=1e-4)


def test_standardize_warns_before_fit():
    gen = kimage.ImageDataGenerator(featurewise_center=True)
    with pytest.warns(UserWarning, match="hasn't been fit"):
        gen.standardize(IMG.copy())


# ------------------------------------------------------------------ random transforms
@pytest.mark.parametrize("name", ["rotation", "shift", "shear", "zoom", "channel_shift",
                                  "brightness"])
def test_random_functions_seeded_like_keras(name):
    fns = {
        "rotation": lambda x: kimage.random_rotation(x, 40, 0, 1, 2),
        "shift": lambda x: kimage.random_shift(x, 0.3, 0.2, 0, 1, 2, fill_mode="wrap"),
        "shear": lambda x: kimage.random_shear(x, 30, 0, 1, 2, fill_mode="constant"),
        "zoom": lambda x: kimage.random_zoom(x, (0.6, 1.3), 0, 1, 2),
        "channel_shift": lambda x: kimage.random_channel_shift(x, 0.4, 2),
        "brightness": lambda x: kimage.random_brightness(x * 255, (0.5, 1.5)),
    }
    np.random.seed(7)
    np.testing.assert_allclose(fns[name](IMG), FIX[f"random/{name}"], atol=1e-3)


def test_random_argument_errors():
    with pytest.raises(ValueError, match="zoom_range"):
        kimage.random_zoom(IMG, (0.5,), 0, 1, 2)
    with pytest.raises(ValueError, match="brightness_range"):
        kimage.random_brightness(IMG, (0.5, 1, 2))


def test_get_random_transform_and_random_transform_match_keras():
    gen = kimage.ImageDataGenerator(**TOOL.FULL)
    params = gen.get_random_transform(IMG.shape, seed=3)
    for key, value in params.items():
        ref = FIX[f"grt/{key}"]
        if value is None:
            assert np.isnan(ref)
        else:
            np.testing.assert_allclose(float(value), float(ref), rtol=1e-12)
    np.testing.assert_allclose(gen.random_transform(IMG, seed=3), FIX["grt_image"], atol=1e-3)
    again = gen.random_transform(IMG, seed=3)
    np.testing.assert_array_equal(again, gen.random_transform(IMG, seed=3))


def test_constructor_contract_and_errors():
    gen = kimage.ImageDataGenerator(zoom_range=0.25)
    assert gen.zoom_range == [0.75, 1.25] and gen.dtype == "float32"
    assert gen.data_format == "channels_last" and gen.channel_axis == 3
    with pytest.warns(UserWarning, match="overrides setting of `featurewise_center`"):
        assert kimage.ImageDataGenerator(featurewise_std_normalization=True).featurewise_center
    with pytest.raises(ValueError, match="`data_format` should be"):
        kimage.ImageDataGenerator(data_format="nhwc")
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        kimage.ImageDataGenerator(validation_split=1.5)
    with pytest.raises(ValueError, match="`zoom_range` should be a float"):
        kimage.ImageDataGenerator(zoom_range=(1, 2, 3))
    with pytest.raises(ValueError, match="brightness_range"):
        kimage.ImageDataGenerator(brightness_range=0.5)
    with pytest.raises(ValueError, match="rank 4"):
        kimage.ImageDataGenerator().fit(IMG)


def test_preprocessing_function_runs_first():
    gen = kimage.ImageDataGenerator(preprocessing_function=lambda x: x + 1.0, rescale=0.5)
    np.testing.assert_allclose(gen.standardize(IMG.copy()), (IMG + 1.0) * 0.5, rtol=1e-6)


# ------------------------------------------------------------------ flow
def test_flow_batches_match_keras():
    it = kimage.ImageDataGenerator(**TOOL.FULL).flow(INP["batch"], INP["labels"], batch_size=4,
                                                     seed=11)
    assert isinstance(it, kimage.NumpyArrayIterator) and len(it) == 2
    for b in range(2):
        x, y = it[b]
        np.testing.assert_allclose(x, FIX[f"flow/{b}/x"], atol=1e-3)
        np.testing.assert_array_equal(y, FIX[f"flow/{b}/y"])
    it.on_epoch_end()
    x, y = it[0]
    np.testing.assert_allclose(x, FIX["flow/epoch2/x"], atol=1e-3)
    np.testing.assert_array_equal(y, FIX["flow/epoch2/y"])


def test_flow_next_loops_like_keras():
    it = kimage.ImageDataGenerator(**TOOL.FULL).flow(INP["batch"], batch_size=4, shuffle=True,
                                                     seed=5)
    for b in range(3):
        np.testing.assert_allclose(next(it), FIX[f"next/{b}"], atol=1e-3)


def test_flow_outputs_weights_misc_and_subset():
    x = np.arange(10 * 2 * 2 * 1, dtype="float32").reshape(10, 2, 2, 1)
    y = np.array([0, 1] * 5)
    w = np.linspace(0, 1, 10)
    gen = kimage.ImageDataGenerator(validation_split=0.3)
    bx, by, bw = gen.flow(x, y, batch_size=4, shuffle=False, sample_weight=w)[1]
    np.testing.assert_array_equal(bx, x[4:8])
    np.testing.assert_array_equal(by, y[4:8])
    np.testing.assert_array_equal(bw, w[4:8])
    (img, misc), _ = gen.flow((x, np.arange(10)), y, batch_size=3, shuffle=False)[0]
    np.testing.assert_array_equal(misc, [0, 1, 2])
    val = gen.flow(x, y, batch_size=2, shuffle=False, subset="validation")
    train = gen.flow(x, y, batch_size=2, shuffle=False, subset="training")
    assert val.n == 3 and train.n == 7
    np.testing.assert_array_equal(val.x, x[:3])
    with pytest.raises(ValueError, match="different number of classes"):
        gen.flow(x, np.array([0] * 3 + [1] * 7), subset="training")
    with pytest.raises(ValueError, match="should have the same length"):
        gen.flow(x, y[:5])
    with pytest.raises(ValueError, match="rank 4"):
        gen.flow(x[0])
    with pytest.raises(ValueError, match="Invalid subset name"):
        gen.flow(x, y, subset="test")
    with pytest.raises(ValueError, match="Asked to retrieve element 5"):
        gen.flow(x, y, batch_size=2)[5]


def test_model_fit_on_flow():
    rng = np.random.default_rng(0)
    x = rng.random((64, 6, 6, 1)).astype("float32")
    y = (x.mean(axis=(1, 2, 3)) > 0.5).astype("float32")
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Flatten(input_shape=(6, 6, 1)),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="binary_crossentropy")
    gen = kimage.ImageDataGenerator(horizontal_flip=True, vertical_flip=True)
    hist = model.fit(gen.flow(x, y, batch_size=16, seed=1), epochs=4, verbose=0)
    assert len(hist.history["loss"]) == 4
    assert hist.history["loss"][-1] < hist.history["loss"][0]


# ------------------------------------------------------------------ flow_from_directory
@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree")
    TOOL.make_tree(str(root))
    return str(root)


@pytest.mark.parametrize("subset", [None, "training", "validation"])
def test_flow_from_directory_matches_keras(tree, subset):
    gen = kimage.ImageDataGenerator(rescale=1 / 255.0, validation_split=0.5)
    it = gen.flow_from_directory(tree, target_size=(4, 5), batch_size=3, seed=2, subset=subset)
    ref = META[f"dir/{subset}"]
    assert isinstance(it, kimage.DirectoryIterator)
    assert it.class_indices == ref["class_indices"]
    assert it.filenames == [os.path.join(*f.split("/")) for f in ref["filenames"]]
    assert it.classes.tolist() == ref["classes"] and it.classes.dtype == np.int32
    assert it.samples == ref["samples"] and len(it) == ref["len"]
    assert it.filepaths == [os.path.join(tree, f) for f in it.filenames]
    x, y = it[0]
    np.testing.assert_allclose(x, FIX[f"dir/{subset}/x0"], atol=1e-6)
    np.testing.assert_array_equal(y, FIX[f"dir/{subset}/y0"])


@pytest.mark.parametrize("mode", ["binary", "sparse", "input", None])
def test_flow_from_directory_class_modes(tree, mode):
    gen = kimage.ImageDataGenerator(rescale=1 / 255.0, validation_split=0.5)
    it = gen.flow_from_directory(tree, target_size=(4, 5), batch_size=2, shuffle=False,
                                 classes=["dogs", "cats"], class_mode=mode,
                                 color_mode="grayscale")
    assert it.class_indices == META[f"dir_mode/{mode}"]["class_indices"]
    batch = it[0]
    if mode is None:
        np.testing.assert_allclose(batch, FIX[f"dir_mode/{mode}/x"], atol=1e-6)
    else:
        np.testing.assert_allclose(batch[0], FIX[f"dir_mode/{mode}/x"], atol=1e-6)
        np.testing.assert_allclose(batch[1], FIX[f"dir_mode/{mode}/y"], atol=1e-6)


def test_flow_from_directory_errors_and_save_to_dir(tree, tmp_path):
    gen = kimage.ImageDataGenerator()
    with pytest.raises(ValueError, match="Invalid class_mode: raw"):
        gen.flow_from_directory(tree, class_mode="raw")
    with pytest.raises(ValueError, match="Invalid color mode"):
        gen.flow_from_directory(tree, color_mode="cmyk")
    with pytest.raises(ValueError, match="Invalid subset name"):
        gen.flow_from_directory(tree, subset="test")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        gen.flow_from_directory(str(tmp_path / "missing"))
    it = gen.flow_from_directory(tree, target_size=(3, 3), batch_size=2, shuffle=False,
                                 save_to_dir=str(tmp_path), save_prefix="aug")
    it[0]
    saved = sorted(os.listdir(tmp_path))
    assert len(saved) == 2 and all(s.startswith("aug_") and s.endswith(".png") for s in saved)


def test_fit_on_flow_from_directory(tree):
    gen = kimage.ImageDataGenerator(rescale=1 / 255.0, rotation_range=10)
    it = gen.flow_from_directory(tree, target_size=(4, 4), batch_size=4, seed=0)
    model = tf.keras.Sequential([tf.keras.layers.Flatten(input_shape=(4, 4, 3)),
                                 tf.keras.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="categorical_crossentropy")
    hist = model.fit(it, epochs=2, verbose=0)
    assert len(hist.history["loss"]) == 2 and np.isfinite(hist.history["loss"]).all()


def test_flow_from_dataframe(tree):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"filename": ["cats/c0.png", "dogs/d0.png", "cats/c1.png", "nope.png"],
                       "class": ["cat", "dog", "cat", "dog"], "w": [1.0, 2.0, 3.0, 4.0]})
    gen = kimage.ImageDataGenerator(rescale=1 / 255.0)
    with pytest.warns(UserWarning, match="1 invalid image filename"):
        it = gen.flow_from_dataframe(df, tree, weight_col="w", target_size=(4, 5),
                                     shuffle=False, class_mode="binary")
    assert it.class_indices == {"cat": 0, "dog": 1} and it.classes == [0, 1, 0]
    x, y, w = it[0]
    assert x.shape == (3, 4, 5, 3)
    np.testing.assert_array_equal(y, [0, 1, 0])
    np.testing.assert_array_equal(w, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="there must be 2 classes"):
        gen.flow_from_dataframe(df.assign(**{"class": ["a", "b", "c", "a"]}), tree,
                                class_mode="binary")
