"""No code runs from a file we load, for the formats that came with export, serving and the TF
formats: with `pickle.load`, `pickle.loads`, `pickle.Unpickler`, `np.load(allow_pickle=True)` and
every `torch.load` call (whatever its `weights_only`) made to raise, each of them still loads:
our checkpoint, TensorFlow checkpoints (`tf.train.load_checkpoint`, and an Estimator continuing
from TF's model_dir), `.keras` archives (ours and Keras 2.15's), Keras 2 `.h5` models and weight
files, an export (`tf.saved_model.load` and a signature call), and the server's own loading of a
version (the `create_app` ASGI app, driven in-process, answering `:predict`)."""

from __future__ import annotations

import json
import os
import pickle
import sys

import numpy as np
import pytest
import torch
from _serving_helpers import asgi_request

import torchestimator as tf

HERE = os.path.dirname(os.path.abspath(__file__))
MIGRATION = os.path.join(os.path.dirname(HERE), "migration")
FORMATS = os.path.join(MIGRATION, "fixtures", "formats")
KERAS = os.path.join(MIGRATION, "fixtures", "keras")
X = np.linspace(-1, 1, 16, dtype=np.float32)


class CodeFromFileAttempted(AssertionError):
    pass


def _guard(monkeypatch) -> list[str]:
    """Makes every unpickling entry point raise; returns the list of attempts (for the check
    that none was swallowed by a loader's `except`)."""
    attempts: list[str] = []

    def refuse(what):
        def call(*args, **kwargs):
            attempts.append(what)
            raise CodeFromFileAttempted(f"a loader called {what}")
        return call

    real_np_load = np.load

    def np_load(*args, allow_pickle=False, **kwargs):
        if allow_pickle:
            attempts.append("np.load(allow_pickle=True)")
            raise CodeFromFileAttempted("a loader called np.load(allow_pickle=True)")
        return real_np_load(*args, allow_pickle=False, **kwargs)

    monkeypatch.setattr(pickle, "load", refuse("pickle.load"))
    monkeypatch.setattr(pickle, "loads", refuse("pickle.loads"))
    monkeypatch.setattr(pickle, "Unpickler", refuse("pickle.Unpickler"))
    monkeypatch.setattr(torch, "load", refuse("torch.load"))
    monkeypatch.setattr(np, "load", np_load)
    return attempts


def _migration_fixtures():
    if MIGRATION not in sys.path:
        sys.path.insert(0, MIGRATION)
    import _fixtures

    return _fixtures


def _export(tmp_path) -> str:
    columns = [tf.feature_column.numeric_column("x")]
    est = tf.estimator.DNNRegressor([4], columns, model_dir=str(tmp_path / "model"),
                                    config=tf.estimator.RunConfig(tf_random_seed=1))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, X)).batch(8), steps=2)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None], tf.float32)})
    return os.fsdecode(est.export_saved_model(str(tmp_path / "exports"), receiver))


def test_the_guard_refuses_torch_load_even_with_weights_only(monkeypatch, tmp_path):
    path = tmp_path / "t.pt"
    torch.save({"a": torch.ones(1)}, str(path))
    attempts = _guard(monkeypatch)
    with pytest.raises(CodeFromFileAttempted):
        torch.load(str(path), weights_only=True)
    with pytest.raises(CodeFromFileAttempted):
        pickle.Unpickler(open(path, "rb"))  # noqa: SIM115 - never opened past the guard
    assert attempts == ["torch.load", "pickle.Unpickler"]


def test_our_checkpoint_and_tf_checkpoints_load_without_unpickling(monkeypatch, tmp_path):
    fx = _migration_fixtures()
    columns = [tf.feature_column.numeric_column("x")]
    ours = tf.estimator.LinearRegressor(columns, model_dir=str(tmp_path / "ours"))
    ours.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, X)).batch(8), steps=2)
    model_dir = fx.copy_model_dir("dnn_regressor", str(tmp_path / "from_tf"))
    spec = fx.fixture("dnn_regressor")
    attempts = _guard(monkeypatch)

    reader = tf.train.load_checkpoint(str(tmp_path / "ours"))
    assert reader.get_tensor("global_step") == 2
    for name in ("object", "dtypes"):  # TF 2.15 tensor bundles: object-based and name-based
        reader = tf.train.load_checkpoint(os.path.join(FORMATS, name))
        shapes = reader.get_variable_to_shape_map()
        assert shapes
        for variable in shapes:
            reader.get_tensor(variable)
    estimator = fx.build("dnn_regressor", model_dir)  # continues from TF's model_dir
    assert estimator.get_variable_value("global_step") == 5
    fx.predict(estimator, spec["features"])
    x, y = fx.features("train", spec["features"]), fx.labels("train", spec["label"])
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(8), steps=1)
    assert estimator.get_variable_value("global_step") == 6
    assert attempts == []


@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_keras_archives_and_h5_files_load_without_unpickling(monkeypatch, tmp_path, name):
    pytest.importorskip("h5py")
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(1,))])
    model.compile("adam", "mse")
    model.save(str(tmp_path / "ours.keras"))
    attempts = _guard(monkeypatch)
    tf.keras.models.load_model(str(tmp_path / "ours.keras"))
    tf.keras.models.load_model(os.path.join(KERAS, f"{name}.keras"))  # Keras 2.15's archive
    h5 = tf.keras.models.load_model(os.path.join(KERAS, f"{name}.h5"))  # a Keras 2 .h5 model
    for suffix in ("_legacy_weights.h5", ".weights.h5"):
        h5.load_weights(os.path.join(KERAS, f"{name}{suffix}"))
    assert attempts == []


def test_an_export_and_the_servers_loading_run_no_code_from_files(monkeypatch, tmp_path):
    from torchestimator.serving import create_app

    export = _export(tmp_path)
    attempts = _guard(monkeypatch)
    loaded = tf.saved_model.load(export)
    out = loaded.signatures["predict"](x=np.array([0.5, -0.5], np.float32))["predictions"]
    assert np.asarray(out).shape == (2, 1)

    app = create_app("m", str(tmp_path / "exports"), poll_seconds=0, num_threads=1)
    status, body = asgi_request(app, "POST", "/v1/models/m:predict",
                                 json.dumps({"signature_name": "predict",
                                             "instances": [0.5, -0.5]}).encode())
    assert status == 200, body
    served = [row["predictions"] if isinstance(row, dict) else row for row in body["predictions"]]
    np.testing.assert_allclose(np.asarray(served, np.float32).reshape(2, 1), np.asarray(out),
                               rtol=1e-5)
    assert attempts == []
