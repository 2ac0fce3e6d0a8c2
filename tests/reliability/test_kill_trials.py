"""Faults injected, nothing lost (reliability, issue 12): SIGKILL at random moments of
`Estimator.train`, of Keras `fit` with `BackupAndRestore` and `ModelCheckpoint`, and of a loop
of `model.save('m.keras')` / `save_weights('m.weights.h5')`.

A trial forks a training process from `_fault_worker.py` (a fork, not a Python start: trials
are cheap), waits until it trains, and SIGKILLs it after a seeded random delay spread over the
next 0.5 s. The processes save every step or batch, so kills land before, inside and after
writes (the figures printed count the kills that caught a file half-written). After each kill
this process checks:

* every file under a final name is complete: each checkpoint `.json` verifies (its checksum),
  each `.safetensors` parses, the `checkpoint` index names a complete checkpoint (no fallback
  warning); each `.keras` loads with `load_model`, each `.weights.h5` with `load_weights`; the
  BackupAndRestore metadata names files that exist and load;
* nothing acknowledged is lost: the newest checkpoint / backup / saved version is not older
  than the one the killed process resumed from;
* the next trial's process resumes from exactly what this check saw (it reports the global
  step, epoch and weights it started from), and its first successful save removes the
  temporary files the killed process left (names recorded after each kill must be gone).

After the last kill this process resumes training itself to the end. A fast subset runs by
default; the full trials per path are marked slow. export_saved_model and the model server do
not exist yet, so they have no kill trials.
"""

from __future__ import annotations

import logging
import os
import random
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from _fault_worker import (
    X,
    Y,
    Zygote,
    estimator,
    input_fn,
    keras_callbacks,
    keras_model,
    read_backup,
    saved_version,
    weights_digest,
)

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine import state_io

FAST_TRIALS, SLOW_TRIALS = 3, 24
KILL_WINDOW_S = 0.5
TRIALS = [pytest.param(FAST_TRIALS, id="fast"),
          pytest.param(SLOW_TRIALS, id="slow", marks=pytest.mark.slow)]


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    worker = Zygote(str(tmp_path_factory.mktemp("zygote") / "worker.log"))
    yield worker
    worker.close()


def _temps(*directories) -> set[str]:
    return {os.path.join(d, n) for d in directories if os.path.isdir(d)
            for n in os.listdir(d) if ".tmp" in n}


def _kill_during(zygote: Zygote, rng: random.Random, scenario: str, result, **args) -> dict:
    """Starts `scenario`, waits until it trains, SIGKILLs it after a random delay; returns what
    the process reported when it started training. Fails if it ended on its own."""
    pid = zygote.start(scenario, str(result), **args)
    try:
        info = zygote.wait_ready(pid)
        time.sleep(rng.uniform(0.0, KILL_WINDOW_S))
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    code = zygote.wait_exit(pid)
    assert code == -signal.SIGKILL, f"{scenario} ended with {code} before the kill: {zygote.tail()}"
    return info


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _report(path: str, trials: int, survived: int, mid_write: int) -> None:
    print(f"\n[kill trials] {path}: {survived}/{trials} kills survived; {mid_write} of them "
          "caught a file half-written (a temporary file was left)")


# ---------------------------------------------------------------------------------------------
# Estimator.train
# ---------------------------------------------------------------------------------------------


def _check_estimator_dir(model_dir: str) -> int:
    """Every final-named file is complete and the index names a complete checkpoint, which
    latest_checkpoint returns without a fallback warning; returns its step."""
    for name in os.listdir(model_dir):
        path = os.path.join(model_dir, name)
        if re.fullmatch(r"model\.ckpt-\d+\.json", name):
            ckpt.load_checkpoint(path[: -len(".json")])  # verifies size and SHA-256
        elif name.endswith(".safetensors"):  # also one whose .json is not written yet
            with open(path, "rb") as f:
                state_io.tensors_from_bytes(f.read(), path)
    with open(os.path.join(model_dir, "checkpoint"), encoding="utf-8") as f:
        index = f.read()
    named = re.search(r'^model_checkpoint_path: "([^"]+)"$', index, re.M)
    assert named, f"index without model_checkpoint_path: {index!r}"
    prefix = os.path.join(model_dir, named.group(1))
    assert ckpt.checkpoint_exists(prefix), f"the index names an incomplete checkpoint {prefix}"
    handler = _Warnings()
    logging.getLogger(ckpt.__name__).addHandler(handler)
    try:
        latest = ckpt.latest_checkpoint(model_dir)
    finally:
        logging.getLogger(ckpt.__name__).removeHandler(handler)
    assert latest == prefix and not handler.messages, handler.messages
    tensors, meta = ckpt.load_checkpoint(latest)
    step = int(latest.rsplit("-", 1)[1])
    assert meta["global_step"] == step == int(tensors["global_step"])
    return step


@pytest.mark.parametrize("trials", TRIALS)
def test_estimator_train_survives_sigkill(zygote, tmp_path, trials):
    rng = random.Random(1200 + trials)
    model_dir = str(tmp_path / "model")
    step, left, survived, mid_write = 0, set(), 0, 0
    for _ in range(trials):
        started = _kill_during(zygote, rng, "estimator_train", tmp_path / "result.json",
                               dir=model_dir)
        assert started["start_step"] == step, "train did not resume from the latest checkpoint"
        assert not left & _temps(model_dir), "the next train left the killed one's temporary files"
        left = _temps(model_dir)
        mid_write += bool(left)
        killed_at = _check_estimator_dir(model_dir)
        assert killed_at > step, f"no checkpoint newer than {step} survived the kill"
        step = killed_at
        survived += 1
    # this process resumes to the end
    est = estimator(model_dir)
    est.train(input_fn, max_steps=step + 3)
    assert _check_estimator_dir(model_dir) == step + 3
    assert not _temps(model_dir), "a temporary file survived the next successful save"
    predictions = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(16)))
    assert len(predictions) == len(X)
    _report("Estimator.train", trials, survived, mid_write)


# ---------------------------------------------------------------------------------------------
# Keras fit with BackupAndRestore and ModelCheckpoint
# ---------------------------------------------------------------------------------------------


def _check_keras_files(checkpoint_dir: str) -> None:
    for name in sorted(os.listdir(checkpoint_dir)):
        path = os.path.join(checkpoint_dir, name)
        if name.endswith(".keras"):
            tf.keras.models.load_model(path)
        elif name.endswith(".weights.h5"):
            keras_model(compiled=False).load_weights(path)


class _Recorder(tf.keras.callbacks.Callback):
    """After BackupAndRestore in the list: what training starts from."""

    def on_train_begin(self, logs=None):
        self.weights = weights_digest(self.model.state_dict().values())
        self.epoch = None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch if self.epoch is None else self.epoch


@pytest.mark.parametrize("trials", TRIALS)
def test_keras_fit_with_backup_and_checkpoints_survives_sigkill(zygote, tmp_path, trials):
    rng = random.Random(1300 + trials)
    backup_dir, checkpoint_dir = str(tmp_path / "backup"), str(tmp_path / "checkpoints")
    expected, position, step, left, survived, mid_write = None, 0, 0, set(), 0, 0
    for _ in range(trials):
        started = _kill_during(zygote, rng, "keras_fit", tmp_path / "result.json",
                               dir=checkpoint_dir, backup_dir=backup_dir)
        if expected is not None:
            assert (started["epoch"], started["weights"]) == expected, \
                "fit did not resume from the backup (epoch, weights)"
        assert not left & _temps(backup_dir, checkpoint_dir), \
            "the next fit left the killed one's temporary files"
        left = _temps(backup_dir, checkpoint_dir)
        mid_write += bool(left)
        _check_keras_files(checkpoint_dir)
        metadata, weights = read_backup(backup_dir)
        # (fit resumes a backup made inside an epoch inside it, at `initial_step`: the position
        # (epoch, step) never goes back; the weights are checked when the next process starts)
        killed_at = metadata["initial_epoch"]
        assert (killed_at, metadata["initial_step"]) >= (position, step), \
            f"the backup went back from {(position, step)} to {(killed_at, metadata['initial_step'])}"
        step = metadata["initial_step"]
        # the killed process may have been writing the next backup, or removing the previous
        generations = {int(n.split("-")[1].split(".")[0]) for n in os.listdir(backup_dir)
                       if n.startswith("backup-")}
        g = metadata["generation"]
        assert generations <= {g - 1, g, g + 1}, f"files of old backups were left: {generations}"
        expected, position = (metadata["initial_epoch"], weights), killed_at
        survived += 1
    # this process resumes to the end; the finished fit deletes the backup
    model, recorder = keras_model(), _Recorder()
    model.fit(X, Y, batch_size=8, epochs=position + 1, verbose=0,
              callbacks=[*keras_callbacks(backup_dir, checkpoint_dir), recorder])
    assert (recorder.epoch, recorder.weights) == expected
    assert not os.path.exists(backup_dir)
    assert not _temps(checkpoint_dir), "a temporary file survived the next successful save"
    _check_keras_files(checkpoint_dir)
    _report("Keras fit + BackupAndRestore + ModelCheckpoint", trials, survived, mid_write)


# ---------------------------------------------------------------------------------------------
# model.save('m.keras') and save_weights in a loop
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("trials", TRIALS)
def test_keras_save_loop_survives_sigkill(zygote, tmp_path, trials):
    rng = random.Random(1400 + trials)
    directory = str(tmp_path / "saves")
    keras_path, weights_path = os.path.join(directory, "m.keras"), os.path.join(directory, "m.weights.h5")
    version, left, survived, mid_write = 0, set(), 0, 0
    for _ in range(trials):
        started = _kill_during(zygote, rng, "keras_save", tmp_path / "result.json", dir=directory)
        assert started["resumed_from"] == version, "the loop did not resume from m.keras"
        assert not left & _temps(directory), "the next save left the killed one's temporary files"
        left = _temps(directory)
        mid_write += bool(left)
        model = tf.keras.models.load_model(keras_path)
        saved = saved_version(model)
        assert saved > version, f"version {version + 1} was saved but {saved} is on disk"
        assert int(model.optimizer.iterations) > 0, "the optimizer state was not saved"
        weights_only = keras_model(width=256, compiled=False)
        weights_only.load_weights(weights_path)
        assert saved_version(weights_only) in (saved - 1, saved)  # saved after m.keras
        version = saved
        survived += 1
    # a new Python process (as after a crash: nothing imported but torchestimator) loads the
    # model, trains on and saves; nothing temporary is left
    iterations = int(tf.keras.models.load_model(keras_path).optimizer.iterations)
    script = (
        "import sys, numpy as np, torchestimator as tf\n"
        "model = tf.keras.models.load_model(sys.argv[1])\n"
        "x = np.random.default_rng(0).normal(size=(64, 8)).astype(np.float32)\n"
        "model.fit(x, x[:, :1], batch_size=8, epochs=1, verbose=0)\n"
        "model.save(sys.argv[1])\n"
        "model.save_weights(sys.argv[2])\n"
        "np.save(sys.argv[3], model.predict(x, verbose=0))\n")
    done = subprocess.run([sys.executable, "-c", script, keras_path, weights_path,
                           str(tmp_path / "predictions.npy")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert not _temps(directory), "a temporary file survived the next successful save"
    again = tf.keras.models.load_model(keras_path)
    assert int(again.optimizer.iterations) == iterations + 8
    np.testing.assert_allclose(again.predict(X, verbose=0), np.load(tmp_path / "predictions.npy"),
                               rtol=1e-6)
    _report("model.save / save_weights loop", trials, survived, mid_write)
