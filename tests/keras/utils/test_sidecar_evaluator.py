"""`tf.keras.utils.SidecarEvaluator` and `tf.keras.callbacks.SidecarEvaluatorModelExport`:
evaluating the checkpoints a training run writes in the same test."""

import os
import threading

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.util import tensor_util

import torchestimator as tf
from torchestimator.keras.utils import _sidecar_evaluator


def make_model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")
    return x, y


def dataset(x, y):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(8)


@pytest.fixture(autouse=True)
def fast_polling(monkeypatch):
    monkeypatch.setattr(_sidecar_evaluator, "_POLL_SEC", 0.02)
    monkeypatch.setattr(_sidecar_evaluator, "_CHECKPOINT_TIMEOUT_SEC", 2)


class Recorder(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.results = []
        self.evaluated = threading.Semaphore(0)

    def on_test_end(self, logs=None):
        self.results.append((int(self.model.optimizer.iterations.numpy()),
                             self.model.get_weights()[0].copy(), dict(logs)))
        self.evaluated.release()


def scalars(log_dir, tag):
    acc = EventAccumulator(os.path.join(log_dir, "validation"), size_guidance={"tensors": 0})
    acc.Reload()
    return [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in acc.Tensors(tag)]


def test_evaluates_each_checkpoint_manager_checkpoint(tmp_path):
    """Training (a CTL-style loop with a CheckpointManager) waits for the evaluator after each
    checkpoint, so every one is evaluated; TensorBoard gets one point per checkpoint."""
    ckpt_dir, log_dir = str(tmp_path / "ckpt"), str(tmp_path / "logs")
    x, y = data()
    train_model = make_model()
    checkpoint = tf.train.Checkpoint(model=train_model, optimizer=train_model.optimizer)
    manager = tf.train.CheckpointManager(checkpoint, ckpt_dir, max_to_keep=5)

    eval_model = make_model()
    recorder = Recorder()
    evaluator = tf.keras.utils.SidecarEvaluator(
        eval_model, dataset(x, y), ckpt_dir, max_evaluations=3,
        callbacks=[recorder, tf.keras.callbacks.TensorBoard(log_dir)])
    errors = []

    def run():
        try:
            evaluator.start()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    expected = []
    for _ in range(3):
        train_model.fit(x, y, batch_size=8, epochs=1, verbose=0)
        manager.save()
        expected.append((int(train_model.optimizer.iterations.numpy()),
                         train_model.get_weights()[0].copy(),
                         train_model.evaluate(x, y, verbose=0, return_dict=True)))
        assert recorder.evaluated.acquire(timeout=10)
    thread.join(10)
    assert not thread.is_alive() and not errors
    assert [r[0] for r in recorder.results] == [4, 8, 12]
    for (it, w, logs), (eit, ew, elogs) in zip(recorder.results, expected):
        assert it == eit
        np.testing.assert_allclose(w, ew)
        np.testing.assert_allclose(logs["loss"], elogs["loss"], rtol=1e-5)
        np.testing.assert_allclose(logs["mae"], elogs["mae"], rtol=1e-5)
    points = scalars(log_dir, "evaluation_loss_vs_iterations")
    assert [s for s, _ in points] == [4, 8, 12]
    np.testing.assert_allclose([v for _, v in points], [e[2]["loss"] for e in expected], rtol=1e-5)


def test_model_checkpoint_weights_and_best_model_export(tmp_path):
    """`fit` with ModelCheckpoint(save_weights_only=True) writes ckpt-1..3; the evaluator takes
    the latest one and SidecarEvaluatorModelExport exports it as the best."""
    ckpt_dir = str(tmp_path / "ckpt")
    x, y = data()
    train_model = make_model()
    train_model.fit(x, y, batch_size=8, epochs=3, verbose=0, callbacks=[
        tf.keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "ckpt-{epoch}"),
                                           save_weights_only=True)])
    assert sorted(n for n in os.listdir(ckpt_dir) if not n.startswith(".")) == [
        "checkpoint", "ckpt-1", "ckpt-2", "ckpt-3"]  # `checkpoint`: the index, as TF 2.15
    assert tf.train.latest_checkpoint(ckpt_dir) == os.path.join(ckpt_dir, "ckpt-3")
    eval_model = make_model()
    export = tf.keras.callbacks.SidecarEvaluatorModelExport(
        export_filepath=os.path.join(str(tmp_path), "best", "best-model-{epoch:04d}"),
        checkpoint_filepath=os.path.join(ckpt_dir, "ckpt-{epoch}"),
        save_weights_only=True, monitor="loss", mode="min")
    recorder = Recorder()
    tf.keras.utils.SidecarEvaluator(eval_model, dataset(x, y), ckpt_dir, max_evaluations=3,
                                    callbacks=[recorder, export]).start()
    assert len(recorder.results) == 1
    np.testing.assert_allclose(recorder.results[0][1], train_model.get_weights()[0])
    assert sorted(n for n in os.listdir(tmp_path / "best") if not n.startswith(".")) == [
        "best-model-0003", "checkpoint"]
    fresh = make_model()
    fresh.load_weights(str(tmp_path / "best" / "best-model-0003"))
    np.testing.assert_allclose(fresh.get_weights()[0], train_model.get_weights()[0])
    assert export.best == pytest.approx(recorder.results[0][2]["loss"])


def test_stops_when_no_checkpoint_appears(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(_sidecar_evaluator, "_CHECKPOINT_TIMEOUT_SEC", 0.3)
    x, y = data()
    with caplog.at_level("INFO"):
        tf.keras.utils.SidecarEvaluator(make_model(), dataset(x, y), str(tmp_path)).start()
    assert "No checkpoints appear to be found" in caplog.text


def test_checkpoint_without_model_is_skipped(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(_sidecar_evaluator, "_CHECKPOINT_TIMEOUT_SEC", 0.3)
    v = tf.Variable(1.0)
    tf.train.Checkpoint(v=v).save(str(tmp_path / "ckpt"))
    x, y = data()
    recorder = Recorder()
    with caplog.at_level("INFO"):
        tf.keras.utils.SidecarEvaluator(make_model(), dataset(x, y), str(tmp_path),
                                        callbacks=[recorder]).start()
    assert recorder.results == []
    assert "tracks no `model`" in caplog.text


def test_iterations_required_without_keras_optimizer(tmp_path):
    import torch

    x, y = data()
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer=torch.optim.SGD(model.parameters(), lr=0.1), loss="mse")
    tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    with pytest.raises(RuntimeError, match="Variable `iterations` cannot be loaded"):
        tf.keras.utils.SidecarEvaluator(model, dataset(x, y), str(tmp_path)).start()


def test_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="tf.keras.Model"):
        tf.keras.utils.SidecarEvaluator(object(), None, str(tmp_path))
    with pytest.raises(TypeError, match="max_evaluations"):
        tf.keras.utils.SidecarEvaluator(make_model(), None, str(tmp_path), max_evaluations="3")
    with pytest.raises(TypeError, match="save_best_only"):
        tf.keras.callbacks.SidecarEvaluatorModelExport("a", "b", save_best_only=False)


def test_callbacks_experimental_alias():
    assert tf.keras.callbacks.experimental.BackupAndRestore is tf.keras.callbacks.BackupAndRestore
