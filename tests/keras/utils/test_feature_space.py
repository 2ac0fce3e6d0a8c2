"""tf.keras.utils.FeatureSpace: encodings compared with TF 2.15 (fixture recorded by
tools/make_tf_feature_space_fixtures.py), the structured-data tutorial end to end, saving and
errors."""

import json
import os

import numpy as np
import pandas as pd
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.utils import FeatureSpace

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_feature_space.json")


def _fixture():
    with open(FIXTURE) as f:
        return json.load(f)


def _columns(table):
    return {k: np.array(v, dtype=object if isinstance(v[0], str) else None) for k, v in table.items()}


def _all_kinds_space():
    fs = FeatureSpace
    return fs(
        features={"f": fs.float(), "fr": fs.float_rescaled(scale=2.0, offset=1.0),
                  "fn": fs.float_normalized(), "fd": fs.float_discretized(num_bins=3),
                  "ic": fs.integer_categorical(), "sc": fs.string_categorical(),
                  "sh": fs.string_hashed(num_bins=4), "ih": fs.integer_hashed(num_bins=5)},
        crosses=[fs.cross(("sc", "ic"), crossing_dim=8)], output_mode="dict")


def test_each_feature_kind_matches_tf():
    ref = _fixture()
    space = _all_kinds_space()
    space.adapt(tf.data.Dataset.from_tensor_slices(_columns(ref["table"])))
    out = space(_columns(ref["query"]))
    assert sorted(out) == sorted(ref["dict"])
    for name, expected in ref["dict"].items():
        np.testing.assert_allclose(np.asarray(out[name]), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def test_concat_mode_and_default_crossing_dim_match_tf():
    ref = _fixture()
    space = FeatureSpace(features={"fn": "float_normalized", "sc": "string_categorical",
                                   "ic": "integer_categorical"},
                         crosses=[("sc", "ic")], crossing_dim=4, output_mode="concat")
    table = {k: ref["table"][k] for k in ("fn", "sc", "ic")}
    space.adapt(tf.data.Dataset.from_tensor_slices(_columns(table)))
    out = space({k: ref["query"][k] for k in ("fn", "sc", "ic")})
    assert out.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), ref["concat"], rtol=1e-5, atol=1e-6)
    single = space({"fn": 3.5, "sc": "a", "ic": 3})  # one unbatched sample
    np.testing.assert_allclose(single.numpy(), ref["concat"][0], rtol=1e-5, atol=1e-6)
    assert tuple(space.get_encoded_features().shape) == (None, 14)
    assert sorted(space.get_inputs()) == ["fn", "ic", "sc"]
    assert set(space.preprocessors) == {"fn", "sc", "ic"} and list(space.crossers) == ["sc_X_ic"]


def test_string_defaults_and_int_output_mode_dict():
    space = FeatureSpace(
        features={"s": FeatureSpace.string_categorical(output_mode="int"),
                  "h": "string_hashed", "d": "float_discretized"},
        crosses=[FeatureSpace.cross(("s", "h"), crossing_dim=16, output_mode="int")],
        hashing_dim=6, num_discretization_bins=2, output_mode="dict")
    data = {"s": np.array(["a", "b", "a", "c"], dtype=object), "h": np.array(["x", "y", "z", "x"], dtype=object),
            "d": np.array([0.0, 1.0, 2.0, 3.0])}
    space.adapt(tf.data.Dataset.from_tensor_slices(data).batch(2))
    out = space(data)
    assert out["s"].tolist() == [[1], [3], [1], [2]]  # by frequency, ties by token descending
    assert out["h"].shape == (4, 6) and out["d"].shape == (4, 2)
    assert out["s_X_h"].dtype == torch.int64 and out["s_X_h"].shape == (4, 1)
    assert int(out["s_X_h"].max()) < 16


def _tutorial_frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.uniform(20, 70, n).astype("float32"),
        "chol": rng.normal(200, 30, n).astype("float32"),
        "cp": rng.integers(0, 4, n),
        "thal": rng.choice(["normal", "fixed", "reversible"], n),
        "slope": rng.integers(1, 4, n),
    })
    # planted rule: the target is 1 for thal == "reversible" or cp == 3
    frame["target"] = ((frame["thal"] == "reversible") | (frame["cp"] == 3)).astype("int64")
    return frame


def _dataframe_to_dataset(frame):
    frame = frame.copy()
    labels = frame.pop("target")
    columns = {k: (v.to_numpy(dtype=object) if v.dtype == object else v.to_numpy())
               for k, v in frame.items()}
    return tf.data.Dataset.from_tensor_slices((columns, labels.to_numpy()))


def test_structured_data_tutorial_end_to_end(tmp_path):
    tf.keras.utils.set_random_seed(0)
    frame = _tutorial_frame()
    train_ds = _dataframe_to_dataset(frame.iloc[:320]).batch(32)
    val_ds = _dataframe_to_dataset(frame.iloc[320:]).batch(32)
    space = FeatureSpace(
        features={"age": "float_discretized", "chol": "float_normalized",
                  "cp": "integer_categorical", "slope": "integer_categorical",
                  "thal": "string_categorical"},
        crosses=[FeatureSpace.cross(("slope", "thal"), crossing_dim=8)], output_mode="concat")
    space.adapt(train_ds.map(lambda x, _: x))
    train = train_ds.map(lambda x, y: (space(x), y))
    val = val_ds.map(lambda x, y: (space(x), y))
    encoded = space.get_encoded_features()
    # Keras's tutorial uses `encoded` itself as the training model's input; this package's
    # functional Model takes only tf.keras.Input tensors, so an Input of its shape stands in.
    features_in = tf.keras.Input(shape=tuple(encoded.shape[1:]))
    hidden = tf.keras.layers.Dense(16, activation="relu")(features_in)
    output = tf.keras.layers.Dense(1, activation="sigmoid")(hidden)
    model = tf.keras.Model(features_in, output)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="binary_crossentropy",
                  metrics=["accuracy"])
    model.fit(train, epochs=15, verbose=0)
    _, accuracy = model.evaluate(val, verbose=0)
    assert accuracy > 0.95
    # the inference model takes the raw dict
    inputs = space.get_inputs()
    end_to_end = tf.keras.Model(inputs, model(space.get_encoded_features()))
    sample = {"age": 60.0, "chol": 250.0, "cp": 3, "slope": 2, "thal": "normal"}
    batch = {k: np.array([v], dtype=object if isinstance(v, str) else None) for k, v in sample.items()}
    assert float(np.asarray(end_to_end.predict(batch, verbose=0)).ravel()[0]) > 0.5


def test_save_and_load_model_round_trip(tmp_path):
    ref = _fixture()
    space = _all_kinds_space()
    space.adapt(tf.data.Dataset.from_tensor_slices(_columns(ref["table"])))
    path = str(tmp_path / "space.keras")
    space.save(path)
    loaded = tf.keras.models.load_model(path)
    assert isinstance(loaded, FeatureSpace)
    assert loaded.get_config()["output_mode"] == "dict"
    out = loaded(_columns(ref["query"]))
    for name, expected in ref["dict"].items():
        np.testing.assert_allclose(np.asarray(out[name]), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def test_config_round_trip():
    space = FeatureSpace(features={"a": "float_rescaled", "b": "integer_hashed",
                                   "c": "integer_hashed"},
                         crosses=[("b", "c")], crossing_dim=5, hashing_dim=7)
    config = space.get_config()
    assert set(config) == {"features", "output_mode", "crosses", "crossing_dim", "hashing_dim",
                           "num_discretization_bins"}
    json.dumps(config)
    clone = FeatureSpace.from_config(config)
    assert clone.crosses[0].feature_names == ("b", "c") and clone.crosses[0].crossing_dim == 5
    assert clone.features["b"].preprocessor.num_bins == 7
    out = clone({"a": [1.0, 2.0], "b": [3, 4], "c": [5, 6]})  # nothing to adapt
    assert out.shape == (2, 1 + 7 + 7 + 5)
    np.testing.assert_allclose(out[:, 0].numpy(), [1.0, 2.0])  # Rescaling defaults: scale 1


def test_errors():
    with pytest.raises(ValueError, match=r"Expected one of \{'dict', 'concat'\}. Received: output_mode=flat"):
        FeatureSpace(features={"a": "float"}, output_mode="flat")
    with pytest.raises(ValueError, match="Received unknown features"):
        FeatureSpace(features={"a": "float"}, crosses=[("a", "nope")])
    with pytest.raises(ValueError, match="Invalid feature type: floaty"):
        FeatureSpace(features={"a": "floaty"})
    with pytest.raises(ValueError, match="cannot be None or empty"):
        FeatureSpace(features={})
    with pytest.raises(ValueError, match="Expected one of {'int', 'one_hot'}"):
        FeatureSpace.cross(("a", "b"), crossing_dim=4, output_mode="float")
    with pytest.raises(ValueError, match="Expected one of {'int', 'one_hot', 'float'}"):
        FeatureSpace.string_categorical(output_mode="multi_hot")
    space = FeatureSpace(features={"a": "string_categorical"})
    with pytest.raises(ValueError, match=r"You need to call `.adapt\(dataset\)`"):
        space({"a": ["x"]})
    with pytest.raises(ValueError, match="can only be called on a tf.data.Dataset"):
        space.adapt({"a": ["x"]})
    space.adapt(tf.data.Dataset.from_tensor_slices({"a": np.array(["x", "y"], dtype=object)}))
    with pytest.raises(ValueError, match="can only be called with a dict"):
        space(["x"])
    with pytest.raises(ValueError, match=r"lacks the feature\(s\) \['a'\]"):
        space({"b": ["x"]})
    with pytest.raises(ValueError, match="Cannot concatenate features because feature 'a'"):
        FeatureSpace(features={"a": FeatureSpace.integer_hashed(4, output_mode="int")})({"a": [1]})


def test_load_model_in_a_fresh_process(tmp_path):
    """A process that never imported FeatureSpace finds it by name when loading."""
    import subprocess
    import sys

    space = FeatureSpace(features={"s": "string_categorical", "x": "float_normalized"})
    space.adapt(tf.data.Dataset.from_tensor_slices(
        {"s": np.array(["a", "b", "a"], dtype=object), "x": np.array([1.0, 2.0, 3.0])}))
    path = str(tmp_path / "fs.keras")
    space.save(path)
    expected = space({"s": ["b"], "x": [3.0]}).numpy().round(4).tolist()
    code = (f"import torchestimator as tf; m = tf.keras.models.load_model({path!r}); "
            "print(type(m).__name__, m({'s': ['b'], 'x': [3.0]}).numpy().round(4).tolist())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == f"FeatureSpace {expected}"


def test_custom_preprocessor_feature_and_unlabeled_map():
    data = {"text": np.array(["1st string", "2nd string", "3rd string"], dtype=object),
            "n": np.array([1.0, 2.0, 3.0])}
    space = FeatureSpace(features={
        "text": FeatureSpace.feature(preprocessor=tf.keras.layers.TextVectorization(
            output_mode="multi_hot"), dtype="string", output_mode="float"),
        "n": FeatureSpace.float()})
    space.adapt(tf.data.Dataset.from_tensor_slices(data))
    out = space(data)
    # vocabulary: [UNK], "string", then the three first words
    assert out.shape == (3, 1 + 5)
    np.testing.assert_allclose(out[:, 0].numpy(), [1.0, 2.0, 3.0])  # features sorted by name
    np.testing.assert_allclose(out[:, 1:].sum(axis=1).numpy(), [2.0, 2.0, 2.0])
    batches = list(tf.data.Dataset.from_tensor_slices(data).batch(2).map(space))
    assert [tuple(b.shape) for b in batches] == [(2, 6), (1, 6)]
    with pytest.raises(ValueError, match="isn't a standard feature"):
        FeatureSpace(features={"n": FeatureSpace.feature(
            preprocessor=tf.keras.layers.Identity(dtype="int64"), dtype="int64",
            output_mode="one_hot")})({"n": [1]})
