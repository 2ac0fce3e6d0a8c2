"""The compile config (losses as objects, strings, dicts and lists; metrics; loss_weights)
round-trips through `model.save('m.keras')` / `load_model`: the reloaded model evaluates as
before and can train. Keras 2.15's own `.keras` archives compiled with loss objects
(fixtures/tf215_compiled_*.keras and .h5, written by tools/make_tf_layer_fixtures_31.py with TF's
evaluate in compiled_31.json) compile on load too. Loading uses the safe registry only."""

import json
import os
import warnings

import numpy as np
import pytest
import torch

import torchestimator as tf

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y_a = (rng.uniform(size=(16, 1)) > 0.5).astype(np.float32)
    y_b = rng.normal(size=(16, 2)).astype(np.float32)
    return x, y_a, y_b


def _two_outputs(kind):
    tf.keras.utils.set_random_seed(1)
    inp = tf.keras.Input((3,))
    a = tf.keras.layers.Dense(1, activation="sigmoid", name="a")(inp)
    b = tf.keras.layers.Dense(2, name="b")(inp)
    return tf.keras.Model(inp, {"a": a, "b": b} if kind == "dict" else [a, b])


def _round_trip(model, x, y, tmp_path, name="m.keras"):
    before = model.evaluate(x, y, verbose=0, return_dict=True)
    path = str(tmp_path / name)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    after = loaded.evaluate(x, y, verbose=0, return_dict=True)
    assert set(after) == set(before)
    for key in before:
        assert after[key] == pytest.approx(before[key], rel=1e-6, abs=1e-7), key
    return loaded, before


def test_dict_of_loss_objects_round_trips(tmp_path):
    x, y_a, y_b = _data()
    model = _two_outputs("dict")
    model.compile(
        "adam",
        loss={"a": tf.keras.losses.BinaryCrossentropy(label_smoothing=0.1),
              "b": tf.keras.losses.Huber(delta=0.5)},
        metrics={"a": [tf.keras.metrics.AUC(name="auc")], "b": ["mae"]},
        loss_weights={"a": 1.0, "b": 0.25},
    )
    loaded, before = _round_trip(model, x, {"a": y_a, "b": y_b}, tmp_path)
    assert "a_auc" in before and "b_mae" in before
    assert isinstance(loaded.loss["a"], tf.keras.losses.BinaryCrossentropy)
    assert loaded.loss["a"].get_config()["label_smoothing"] == pytest.approx(0.1)
    assert loaded.loss["b"].get_config()["delta"] == pytest.approx(0.5)
    history = loaded.fit(x, {"a": y_a, "b": y_b}, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_list_of_loss_objects_round_trips(tmp_path):
    x, y_a, y_b = _data()
    model = _two_outputs("list")
    model.compile("sgd", loss=[tf.keras.losses.BinaryCrossentropy(), "mse"],
                  metrics=[[tf.keras.metrics.BinaryAccuracy()], []], loss_weights=[0.3, 0.7])
    loaded, _ = _round_trip(model, x, [y_a, y_b], tmp_path)
    assert isinstance(loaded.loss[0], tf.keras.losses.BinaryCrossentropy)
    assert loaded.loss[1] == "mse"
    assert loaded.get_compile_config()["loss_weights"] == [0.3, 0.7]


def test_single_loss_object_round_trips(tmp_path):
    x, y_a, _ = _data()
    tf.keras.utils.set_random_seed(2)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile(tf.keras.optimizers.Adam(0.01), loss=tf.keras.losses.BinaryCrossentropy(label_smoothing=0.2),
                  metrics=[tf.keras.metrics.AUC(), "accuracy"])
    model.fit(x, y_a, epochs=1, verbose=0)
    loaded, _ = _round_trip(model, x, y_a, tmp_path)
    assert loaded.loss is not None
    assert loaded.loss.get_config()["label_smoothing"] == pytest.approx(0.2)
    # the optimizer state came back too: one more step gives the same weights
    model.fit(x, y_a, epochs=1, verbose=0, shuffle=False)
    loaded.fit(x, y_a, epochs=1, verbose=0, shuffle=False)
    for w1, w2 in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(w1, w2, rtol=1e-5, atol=1e-6)


def test_string_losses_still_round_trip(tmp_path):
    x, y_a, _ = _data()
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile("rmsprop", loss="binary_crossentropy", metrics=["accuracy"])
    loaded, _ = _round_trip(model, x, y_a, tmp_path)
    assert loaded.loss == "binary_crossentropy"


def test_compile_config_is_keras_layout_json():
    model = _two_outputs("dict")
    model.compile("adam", loss={"a": tf.keras.losses.BinaryCrossentropy(), "b": "mse"},
                  metrics={"a": [tf.keras.metrics.AUC(name="auc")]})
    config = json.loads(json.dumps(model.get_compile_config()))
    assert config["optimizer"] == "adam"
    assert config["loss"]["a"]["class_name"] == "BinaryCrossentropy"
    assert config["loss"]["b"] == "mse"
    assert config["metrics"]["a"][0]["class_name"] == "AUC"
    # the metric name the user gave, not the output-prefixed one the container uses
    assert config["metrics"]["a"][0]["config"]["name"] == "auc"
    for key in ("loss_weights", "weighted_metrics", "run_eagerly", "steps_per_execution", "jit_compile"):
        assert key in config


def test_compile_from_config_rebuilds_objects():
    model = _two_outputs("dict")
    model.compile("adam", loss={"a": tf.keras.losses.BinaryCrossentropy(label_smoothing=0.3), "b": "mse"})
    other = _two_outputs("dict")
    other.compile_from_config(model.get_compile_config())
    assert other.loss["a"].get_config()["label_smoothing"] == pytest.approx(0.3)


def test_torch_loss_is_saved_as_none_with_a_warning(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", loss=torch.nn.MSELoss())
    with pytest.warns(UserWarning, match="`loss` cannot be saved"):
        model.save(str(tmp_path / "t.keras"))
    loaded = tf.keras.models.load_model(str(tmp_path / "t.keras"))
    assert loaded.loss is None


def test_unknown_loss_class_is_refused_without_importing(tmp_path):
    """A config naming a class that is not registered is an error naming it; the `module`
    field is never imported."""
    from torchestimator.keras.engine._compile_config import deserialize_compile_args

    config = {"loss": {"module": "os", "class_name": "system", "config": {"command": "true"}}}
    with pytest.raises(ValueError, match="system"):
        deserialize_compile_args(config)


@pytest.mark.parametrize("ext", [".keras", ".h5"])
@pytest.mark.parametrize("case", ["dict", "list", "single"])
def test_keras215_archive_with_loss_objects_compiles_on_load(case, ext):
    pytest.importorskip("h5py")
    with open(os.path.join(FIXTURES, "compiled_31.json")) as f:
        record = json.load(f)
    x = np.asarray(record["x"], np.float32)
    y_a, y_b = np.asarray(record["y_a"], np.float32), np.asarray(record["y_b"], np.float32)
    y = {"dict": {"a": y_a, "b": y_b}, "list": [y_a, y_b], "single": y_a}[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # "loaded but not compiled" would fail here
        model = tf.keras.models.load_model(os.path.join(FIXTURES, f"tf215_compiled_{case}{ext}"))
    assert model.loss is not None
    ours = model.evaluate(x, y, verbose=0, return_dict=True)
    theirs = record["cases"][case]["evaluate"]
    for key in ("loss",) + tuple(k for k in theirs if k.endswith("_loss")):
        assert ours[key] == pytest.approx(theirs[key], rel=1e-5, abs=1e-6), key


def test_identity_the_layer_and_identity_the_initializer_stay_apart(tmp_path):
    """Both kinds are named `Identity` (as in Keras): a saved model keeps each where it was."""
    import torchestimator as tf
    from torchestimator.keras._registry import deserialize_keras_object

    model = tf.keras.Sequential([tf.keras.layers.Identity(input_shape=(2,)),
                                 tf.keras.layers.Dense(2, kernel_initializer="identity")])
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.layers[0]) is tf.keras.layers.Identity
    assert type(loaded.layers[1].kernel_initializer) is tf.keras.initializers.Identity
    assert type(deserialize_keras_object({"class_name": "Identity", "config": {}})) is \
        tf.keras.initializers.Identity
    assert type(deserialize_keras_object({"class_name": "Identity", "module": "keras.layers",
                                          "config": {"name": "i"}})) is tf.keras.layers.Identity
