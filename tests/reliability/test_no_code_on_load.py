"""No code runs from a file we load: with every unpickling entry point made to raise, each format
the package reads (Estimator checkpoints, tf.train readers, warm start, .keras archives, weight
files, BackupAndRestore and ModelCheckpoint files) still loads; a Lambda's code loads only with
safe_mode=False, as Keras."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest
import torch

import torchestimator as tf

X = np.random.default_rng(2).normal(size=(16, 3)).astype(np.float32)
Y = (X[:, :1] > 0).astype(np.float32)


class UnpicklingAttempted(AssertionError):
    pass


@pytest.fixture
def no_unpickling(monkeypatch):
    """Every way to run code from bytes that a loader could take raises."""

    def refuse(*args, **kwargs):
        raise UnpicklingAttempted("a loader tried to unpickle")

    def safe_torch_load(*args, weights_only=None, **kwargs):
        raise UnpicklingAttempted(f"a loader called torch.load (weights_only={weights_only})")

    real_np_load = np.load

    def np_load(*args, allow_pickle=False, **kwargs):
        if allow_pickle:
            raise UnpicklingAttempted("a loader called np.load(allow_pickle=True)")
        return real_np_load(*args, allow_pickle=False, **kwargs)

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    monkeypatch.setattr(torch, "load", safe_torch_load)
    monkeypatch.setattr(np, "load", np_load)


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)


def _keras_model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
    model.fit(X, Y, epochs=1, verbose=0)
    return model


def test_the_guard_catches_a_pickle_load(no_unpickling, tmp_path):
    path = tmp_path / "bad.pt"
    path.write_bytes(b"\x80\x04N.")
    with pytest.raises(UnpicklingAttempted):
        torch.load(str(path))
    with pytest.raises(UnpicklingAttempted):
        pickle.loads(b"\x80\x04N.")


def test_estimator_checkpoints_load_without_unpickling(tmp_path, monkeypatch, request):
    columns = [tf.feature_column.numeric_column("x", shape=(3,))]
    est = tf.estimator.DNNClassifier([4], columns, model_dir=str(tmp_path / "m"))
    est.train(_input_fn, steps=3)
    request.getfixturevalue("no_unpickling")
    fresh = tf.estimator.DNNClassifier([4], columns, model_dir=str(tmp_path / "m"))
    assert fresh.evaluate(_input_fn)["global_step"] == 3
    assert len(list(fresh.predict(_input_fn))) == 16
    fresh.train(_input_fn, steps=1)  # resume
    assert dict(tf.train.list_variables(str(tmp_path / "m")))["global_step"] == []
    assert tf.train.load_variable(str(tmp_path / "m"), "global_step") == 4
    warm = tf.estimator.DNNClassifier([4], columns, model_dir=str(tmp_path / "w"),
                                      warm_start_from=str(tmp_path / "m"))
    warm.train(_input_fn, steps=1)


def test_keras_files_load_without_unpickling(tmp_path, request):
    model = _keras_model()
    model.save(str(tmp_path / "m.keras"))
    model.save_weights(str(tmp_path / "w.weights.h5"))
    saved_predictions = model.predict(X, verbose=0)
    backup = tmp_path / "backup"
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(str(backup), delete_checkpoint=False),
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "ck.keras")),
    ])
    request.getfixturevalue("no_unpickling")
    loaded = tf.keras.models.load_model(str(tmp_path / "m.keras"))
    np.testing.assert_allclose(loaded.predict(X, verbose=0), saved_predictions, rtol=1e-6)
    tf.keras.models.load_model(str(tmp_path / "ck.keras"))
    other = _keras_model()
    other.load_weights(str(tmp_path / "w.weights.h5"))
    restored = _keras_model()
    restored.fit(X, Y, epochs=3, verbose=0,
                 callbacks=[tf.keras.callbacks.BackupAndRestore(str(backup))])


def test_lambda_code_loads_only_with_safe_mode_off(tmp_path):
    inputs = tf.keras.Input(shape=(3,))
    outputs = tf.keras.layers.Lambda(lambda t: t * 2.0)(inputs)
    model = tf.keras.Model(inputs, outputs)
    path = str(tmp_path / "lambda.keras")
    model.save(path)
    with pytest.raises(ValueError, match="safe_mode"):
        tf.keras.models.load_model(path)
    loaded = tf.keras.models.load_model(path, safe_mode=False)
    np.testing.assert_allclose(loaded.predict(X, verbose=0), X * 2.0, rtol=1e-6)


def test_a_pickle_smuggled_into_a_keras_archive_is_never_read(tmp_path, no_unpickling):
    model = _keras_model()
    path = tmp_path / "m.keras"
    model.save(str(path))
    smuggled = tmp_path / "smuggled.keras"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(smuggled, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item.filename))
        buffer = io.BytesIO()
        buffer.write(b"\x80\x04N.")
        target.writestr("model.weights.pkl", buffer.getvalue())
    tf.keras.models.load_model(str(smuggled))  # an extra member is never read


@pytest.mark.parametrize("member", ["../outside.txt", "/etc/evil", "a/../../b", "C:/x"])
def test_archive_member_names_that_climb_out_are_refused(tmp_path, member):
    model = _keras_model()
    path = tmp_path / "m.keras"
    model.save(str(path))
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(member, b"never extracted")
    with pytest.raises(ValueError, match="not a safe model archive"):
        tf.keras.models.load_model(str(path))
