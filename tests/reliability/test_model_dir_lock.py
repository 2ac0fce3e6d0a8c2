"""One writer per model_dir (reliability, defect 2): a second process training into a directory
another process is writing fails at once naming the holder, or waits when asked; a SIGKILLed
holder leaves no stale lock; readers never need the lock. Real processes, real flock."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import torchestimator as tf
from torchestimator._engine.dir_lock import DirectoryLockedError, directory_lock

WORKER = os.path.join(os.path.dirname(__file__), "_lock_worker.py")
X = np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32)


def _start(kind: str, model_dir, tmp_path, hold: float) -> subprocess.Popen:
    ready = tmp_path / f"ready-{kind}"
    proc = subprocess.Popen([sys.executable, WORKER, kind, str(model_dir), str(ready), str(hold)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not ready.exists():
        if proc.poll() is not None:
            raise AssertionError(f"worker exited early: {proc.communicate()[1].decode()[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("worker never started training")
        time.sleep(0.05)
    return proc


def _estimator(model_dir) -> tf.estimator.LinearRegressor:
    return tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=(2,))],
                                        model_dir=str(model_dir))


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, X[:, :1])).batch(4)


def test_second_estimator_trainer_fails_naming_the_holder_then_runs_after_a_kill(tmp_path):
    model_dir = tmp_path / "model"
    _estimator(model_dir).train(_input_fn, steps=2)  # a first checkpoint, for readers
    holder = _start("estimator", model_dir, tmp_path, hold=120)
    try:
        with pytest.raises(DirectoryLockedError) as caught:
            _estimator(model_dir).train(_input_fn, steps=1)
        message = str(caught.value)
        assert str(model_dir) in message
        assert f"process {holder.pid}" in message and socket.gethostname() in message
        assert "Estimator.train" in message
        # readers never need the lock
        reader = _estimator(model_dir)
        assert reader.evaluate(_input_fn)["global_step"] >= 2
        assert len(list(reader.predict(_input_fn))) == 8
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    est = _estimator(model_dir)  # the OS released the killed holder's lock: no stale lock
    est.train(_input_fn, steps=1)
    assert est.get_variable_value("global_step") >= 3


def test_second_writer_waits_when_asked(tmp_path, monkeypatch):
    model_dir = tmp_path / "model"
    holder = _start("estimator", model_dir, tmp_path, hold=1.5)
    monkeypatch.setenv("TORCHESTIMATOR_LOCK_WAIT_SECS", "120")
    try:
        start = time.monotonic()
        _estimator(model_dir).train(_input_fn, steps=1)
        waited = time.monotonic() - start
    finally:
        holder.wait(120)
    assert holder.returncode == 0, holder.communicate()[1].decode()[-2000:]
    assert waited > 0.5  # it waited for the holder instead of failing


def test_keras_backup_dir_has_one_writer(tmp_path):
    backup = tmp_path / "backup"
    holder = _start("keras", backup, tmp_path, hold=120)
    try:
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        model.compile("sgd", "mse")
        with pytest.raises(DirectoryLockedError, match="Model.fit") as caught:
            model.fit(X, X[:, :1], epochs=1, verbose=0,
                      callbacks=[tf.keras.callbacks.BackupAndRestore(str(backup))])
        assert f"process {holder.pid}" in str(caught.value)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)


def test_model_checkpoint_locks_only_its_own_pattern(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    pattern = str(tmp_path / "w.{epoch:02d}.weights.h5")
    callback = tf.keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True)
    (directory, name), = callback._write_locks()
    assert directory == str(tmp_path) and name.startswith(".w.") and name.endswith(".lock")
    # another process would be refused while fit holds it; within this process it is re-entrant
    with directory_lock(directory, "test", lock_name=name):
        model.fit(X, X[:, :1], epochs=1, verbose=0, callbacks=[callback])
    assert (tmp_path / "w.01.weights.h5").exists()


def test_lock_is_reentrant_in_one_process_and_released(tmp_path):
    with directory_lock(str(tmp_path), "outer"):
        with directory_lock(str(tmp_path), "inner"):
            pass
        probe = subprocess.run(
            [sys.executable, "-c",
             "import sys; from torchestimator._engine.dir_lock import directory_lock\n"
             "try:\n"
             f"    with directory_lock({str(tmp_path)!r}, 'probe'): sys.exit(0)\n"
             "except RuntimeError as e:\n    print(e); sys.exit(3)"],
            capture_output=True, text=True, timeout=120)
        assert probe.returncode == 3 and "outer" in probe.stdout
    probe = subprocess.run(
        [sys.executable, "-c",
         "from torchestimator._engine.dir_lock import directory_lock\n"
         f"with directory_lock({str(tmp_path)!r}, 'probe'): pass"],
        capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr


def _pause(tmp_path, kind: str = "estimator-gated") -> None:
    """Holds the gated worker before its next step (its last checkpoint saved); returns when
    it waits."""
    (tmp_path / f"ready-{kind}.gate").touch()
    waiting = tmp_path / f"ready-{kind}.waiting"
    deadline = time.monotonic() + 60
    while not waiting.exists():
        assert time.monotonic() < deadline, "the worker never paused"
        time.sleep(0.02)
    waiting.unlink()


def _resume(tmp_path, kind: str = "estimator-gated") -> None:
    (tmp_path / f"ready-{kind}.gate").unlink()


def _delete(directory) -> None:
    """rm -r, again while a background writer (a summary thread) re-creates files in it."""
    for _ in range(50):
        shutil.rmtree(directory, ignore_errors=True)
        if not os.path.exists(directory):
            return
    raise AssertionError(f"could not delete {directory}")


def _checkpoints(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.startswith("model.ckpt-")) \
        if os.path.isdir(directory) else []


def test_model_dir_deleted_while_training_is_locked_again_by_its_writer(tmp_path):
    """rm -r model_dir under a running train: its next checkpoint re-creates the directory
    and its lock file, locked again, so a second trainer is still refused (naming it)."""
    model_dir = tmp_path / "model"
    holder = _start("estimator-gated", model_dir, tmp_path, hold=120)
    try:
        _pause(tmp_path)
        _delete(model_dir)
        _resume(tmp_path)
        deadline = time.monotonic() + 60
        while not _checkpoints(model_dir):  # the holder saved into the re-created directory
            assert holder.poll() is None, holder.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "the holder saved no checkpoint after the deletion"
            time.sleep(0.05)
        with pytest.raises(DirectoryLockedError) as caught:
            _estimator(model_dir).train(_input_fn, steps=1)
        assert f"process {holder.pid}" in str(caught.value) and str(model_dir) in str(caught.value)
        with open(model_dir / ".lock") as f:
            assert json.load(f)["pid"] == holder.pid
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    _, errors = holder.communicate()
    assert b"lock file" in errors and str(model_dir / ".lock").encode() in errors  # the warning


def test_writer_whose_deleted_model_dir_was_taken_by_another_fails_naming_it(tmp_path):
    """rm -r model_dir under a running train, and another process locks the re-created
    directory first: the train's next save fails naming that process, writing nothing."""
    model_dir = tmp_path / "model"
    holder = _start("estimator-gated", model_dir, tmp_path, hold=60)
    try:
        _pause(tmp_path)
        _delete(model_dir)
        with directory_lock(str(model_dir), "the intruder"):
            _resume(tmp_path)
            holder.wait(120)
            assert _checkpoints(model_dir) == [], "the old writer wrote into the re-created directory"
    finally:
        if holder.poll() is None:
            holder.send_signal(signal.SIGKILL)
            holder.wait(30)
    errors = holder.communicate()[1].decode()
    assert holder.returncode != 0, errors[-2000:]
    assert "DirectoryLockedError" in errors and str(model_dir) in errors, errors[-2000:]
    assert f"process {os.getpid()}" in errors and "the intruder" in errors, errors[-2000:]


def _probe(directory) -> subprocess.CompletedProcess:
    """Another process trying the lock of `directory`: exit 3 (and the error) when refused."""
    return subprocess.run(
        [sys.executable, "-c",
         "import sys; from torchestimator._engine.dir_lock import directory_lock\n"
         "try:\n"
         f"    with directory_lock({str(directory)!r}, 'probe'): sys.exit(0)\n"
         "except RuntimeError as e:\n    print(e); sys.exit(3)"],
        capture_output=True, text=True, timeout=120)


def test_keras_writers_lock_their_deleted_folder_again(tmp_path):
    """The writers of BackupAndRestore / ModelCheckpoint (atomic_write_bytes) re-create a
    deleted folder with its lock file, locked again."""
    from torchestimator._engine.state_io import atomic_write_bytes

    backup = tmp_path / "backup"
    with directory_lock(str(backup), "Model.fit"):
        _delete(backup)
        atomic_write_bytes(str(backup / "training_metadata.json"), b"{}")
        probe = _probe(backup)
        assert probe.returncode == 3 and "Model.fit" in probe.stdout, probe
    assert _probe(backup).returncode == 0  # and released at the end


def test_invalid_arguments_do_not_create_the_model_dir(tmp_path):
    model_dir = tmp_path / "never"
    with pytest.raises(ValueError, match="steps > 0"):
        _estimator(model_dir).train(_input_fn, steps=0)
    assert not model_dir.exists() or not any(model_dir.iterdir())


def test_bad_wait_setting_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHESTIMATOR_LOCK_WAIT_SECS", "soon")
    with pytest.raises(ValueError, match="TORCHESTIMATOR_LOCK_WAIT_SECS"):
        with directory_lock(str(tmp_path), "test"):
            pass
