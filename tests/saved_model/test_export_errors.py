"""What cannot be exported or loaded gets an error naming the cause, the line, the input or
the file; a damaged export is refused, not served wrong."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from _export_testlib import RAW_SPECS, Y_CLASS, columns, input_fn, rows

import torchestimator as tf

E = tf.estimator
RAW = E.export.build_raw_serving_input_receiver_fn(RAW_SPECS)


def _estimator(model_fn, tmp_path, steps=2):
    estimator = E.Estimator(model_fn, model_dir=str(tmp_path / "m"))
    estimator.train(input_fn(Y_CLASS), steps=steps)
    return estimator


def _spec(mode, logits, labels, predictions):
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions=predictions)
    loss = tf.reduce_mean(tf.square(logits[:, 0] - tf.cast(labels, tf.float32)))
    return E.EstimatorSpec(mode, loss=loss, train_op=tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()))


def test_data_dependent_python_control_flow_names_the_line(tmp_path):
    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(1, name="d")(tf.reshape(features["x"], [-1, 1]))
        if tf.reduce_sum(logits) > 0:  # Python control flow on a tensor value
            logits = logits * 2
        return _spec(mode, logits, labels, {"logits": logits})

    estimator = _estimator(model_fn, tmp_path)
    with pytest.raises(tf.saved_model.ExportError) as info:
        estimator.export_saved_model(str(tmp_path / "e"), RAW)
    message = str(info.value)
    assert "test_export_errors.py" in message and "if tf.reduce_sum(logits) > 0" in message
    assert not os.path.exists(tmp_path / "e") or not [p for p in os.listdir(tmp_path / "e") if p.isdigit()]


def test_batch_size_as_python_number_is_named(tmp_path):
    def model_fn(features, labels, mode):
        x = tf.reshape(features["x"], [-1, 1])
        logits = tf.keras.layers.Dense(1, name="d")(x) + tf.zeros([int(x.shape[0]), 1])
        return _spec(mode, logits, labels, {"logits": logits})

    estimator = _estimator(model_fn, tmp_path)
    with pytest.raises(tf.saved_model.ExportError, match="batch size as a Python number"):
        estimator.export_saved_model(str(tmp_path / "e"), RAW)


def test_string_prediction_and_raw_string_feature_are_refused(tmp_path):
    def strings_out(features, labels, mode):
        logits = tf.keras.layers.Dense(1, name="d")(tf.reshape(features["x"], [-1, 1]))
        return _spec(mode, logits, labels, {"logits": logits, "name": np.array([b"a"] * len(features["x"]))})

    with pytest.raises(tf.saved_model.ExportError, match="Output 'name' of signature 'serving_default' is a ndarray"):
        _estimator(strings_out, tmp_path).export_saved_model(str(tmp_path / "e"), RAW)

    def reads_strings(features, labels, mode):
        logits = tf.keras.layers.Dense(1, name="d")(tf.reshape(features["x"], [-1, 1]))
        if mode == E.ModeKeys.PREDICT:
            logits = logits + len(features["kind"][0])
        return _spec(mode, logits, labels, {"logits": logits})

    with pytest.raises(tf.saved_model.ExportError, match="Feature 'kind' .* through a feature column layer"):
        _estimator(reads_strings, tmp_path / "b").export_saved_model(str(tmp_path / "e2"), RAW)


def test_feature_changed_before_a_feature_column_layer_is_refused(tmp_path):
    dense, _ = columns()

    def model_fn(features, labels, mode):
        features = dict(features, x=features["x"] * 2)
        logits = tf.keras.layers.Dense(1, name="d")(tf.keras.layers.DenseFeatures(dense, name="fc")(features))
        return _spec(mode, logits, labels, {"logits": logits})

    with pytest.raises(tf.saved_model.ExportError, match="Layer 'fc' reads feature 'x', which the model_fn changed"):
        _estimator(model_fn, tmp_path).export_saved_model(str(tmp_path / "e"), RAW)


def test_receiver_and_checkpoint_errors(tmp_path):
    dense, _ = columns()
    estimator = E.DNNClassifier([4], dense, model_dir=str(tmp_path / "m"))
    with pytest.raises(ValueError, match="Couldn't find trained model at"):
        estimator.export_saved_model(str(tmp_path / "e"), RAW)
    estimator.train(input_fn(Y_CLASS), steps=1)
    with pytest.raises(ValueError, match="An input_receiver_fn must be defined"):
        estimator.export_saved_model(str(tmp_path / "e"), None)
    with pytest.raises(ValueError, match="must return a ServingInputReceiver"):
        estimator.export_saved_model(str(tmp_path / "e"), lambda: {"x": tf.TensorSpec([None])})

    def computing_receiver():
        x = tf.compat.v1.placeholder(tf.float32, [None], name="x")
        return E.export.ServingInputReceiver({"x": tf.TensorSpec([None]), "kind": x}, {"x": x})

    with pytest.raises(ValueError, match="Feature 'x' is not one of the receiver tensors"):
        estimator.export_saved_model(str(tmp_path / "e"), computing_receiver)
    partial = E.export.build_raw_serving_input_receiver_fn({"x": tf.TensorSpec([None])})
    with pytest.raises(ValueError, match=r"Feature 'city' is required by feature column 'city'.*present: \['x'\]"):
        estimator.export_saved_model(str(tmp_path / "e"), partial)
    with pytest.raises(ValueError, match="feature_spec must be a non-empty dict"):
        E.export.build_parsing_serving_input_receiver_fn({})
    with pytest.raises(ValueError, match="TensorServingInputReceiver"):
        E.export.TensorServingInputReceiver({"x": tf.TensorSpec([None])}, {})
    with pytest.raises(ValueError, match="experimental_mode='train'"):
        estimator.export_saved_model(str(tmp_path / "e"), RAW, experimental_mode=E.ModeKeys.TRAIN)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("exported")
    dense, _ = columns()
    estimator = E.DNNClassifier([4], dense, model_dir=str(root / "m"))
    estimator.train(input_fn(Y_CLASS), steps=2)
    return os.fsdecode(estimator.export_saved_model(str(root / "e"), RAW))


def test_signature_input_errors_name_the_input(exported):
    signature = tf.saved_model.load(exported).signatures["predict"]
    batch = rows(0, 4)
    with pytest.raises(ValueError, match=r"missing input\(s\) \['city'\]"):
        signature(**{k: v for k, v in batch.items() if k != "city"})
    with pytest.raises(ValueError, match=r"unexpected input\(s\) \['extra'\]"):
        signature(**batch, extra=[1.0])
    with pytest.raises(TypeError, match="Input 'x' of signature 'predict' expects float32 values"):
        signature(**dict(batch, x=np.array(["a"] * 4, dtype=object)))
    with pytest.raises(TypeError, match="Input 'kind' of signature 'predict' expects strings"):
        signature(**dict(batch, kind=np.arange(4)))
    with pytest.raises(ValueError, match=r"Input 'x' of signature 'predict' expects shape \[\?\]"):
        signature(**dict(batch, x=np.zeros((4, 2), "float32")))
    with pytest.raises(TypeError, match="Input 'n' of signature 'predict' expects int64"):
        signature(**dict(batch, n=np.array([0.5, 1, 2, 3])))
    with pytest.raises(TypeError, match="keyword arguments"):
        signature(batch["x"], batch["kind"])
    with pytest.raises(KeyError, match="Signature 'classify' is not in this export"):
        tf.saved_model.load(exported).signatures["classify"]
    # after the errors, a good call still works
    assert signature(**batch)["class_ids"].shape == (4, 1)


def test_load_errors_name_the_file(exported, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        tf.saved_model.load(str(tmp_path / "nowhere"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="No export found"):
        tf.saved_model.load(str(tmp_path / "empty"))
    (tmp_path / "tf").mkdir()
    (tmp_path / "tf" / "saved_model.pb").write_bytes(b"\x08\x01")
    with pytest.raises(ValueError, match="is a TensorFlow SavedModel"):
        tf.saved_model.load(str(tmp_path / "tf"))
    import shutil

    for name in ("variables.safetensors", "program.json"):
        damaged = tmp_path / f"damaged-{name}"
        shutil.copytree(exported, damaged)
        data = bytearray((damaged / name).read_bytes())
        data[len(data) // 2] ^= 0x01
        (damaged / name).write_bytes(bytes(data))
        with pytest.raises(ValueError, match=f"{name} does not match the checksum"):
            tf.saved_model.load(str(damaged))
    missing = tmp_path / "missing"
    shutil.copytree(exported, missing)
    os.remove(missing / "program.json")
    with pytest.raises(FileNotFoundError, match="program.json is missing"):
        tf.saved_model.load(str(missing))
    with pytest.raises(ValueError, match="tags must be 'serve'"):
        tf.saved_model.load(exported, tags=["train"])
    assert tf.saved_model.contains_saved_model(exported) and not tf.saved_model.contains_saved_model(str(tmp_path))


def test_loading_runs_no_pickle(exported, monkeypatch):
    import pickle

    def refuse(*args, **kwargs):
        raise AssertionError("pickle used while loading an export")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    monkeypatch.setattr(torch, "load", refuse)
    loaded = tf.saved_model.load(exported)
    assert loaded.signatures["predict"](**rows(0, 3))["probabilities"].shape == (3, 2)
