"""Faults injected, nothing lost (reliability, issue 12): the disk fills up or stops being
writable while training saves.

* A file-size limit hit mid-save: a forked process (`_fault_worker.py`) sets `RLIMIT_FSIZE`
  below the size of the file being saved, with SIGXFSZ ignored, so the write fails with EFBIG
  exactly as on a full disk.
* The folder made read-only mid-run (by the training process itself, after some saves). Root
  ignores permissions, so when the tests run as root the worker runs under
  `setpriv --bounding-set -dac_override,-dac_read_search`: a root without the capability to
  override permissions, for whom a 0o555 folder is read-only.
* The folder deleted while training.

Every writer is covered: Estimator checkpoints, `model.save` (.keras), `save_weights`
(.weights.h5), BackupAndRestore and ModelCheckpoint. Each fault gives an error naming the path
and the cause; the previous checkpoint (backup, saved file) stays loadable with the same
content; no temporary file is left, and none after the next successful save.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat

import pytest
from _fault_worker import (
    X,
    Y,
    Zygote,
    estimator,
    input_fn,
    keras_model,
    read_backup,
    weights_digest,
)

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt

WRITERS = ("estimator", "save", "save_weights", "backup", "model_checkpoint")
CAUSES = {"fsize": os.strerror(errno.EFBIG), "readonly": os.strerror(errno.EACCES)}


def _setpriv_prefix() -> tuple:
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    return (setpriv, "--bounding-set", "-dac_override,-dac_read_search") if setpriv else ()


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    log = str(tmp_path_factory.mktemp("zygote") / "worker.log")
    try:
        worker = Zygote(log, _setpriv_prefix())
    except (RuntimeError, TimeoutError):  # setpriv refused (no CAP_SETPCAP): plain worker
        worker = Zygote(log)
    probe = tmp_path_factory.mktemp("probe")
    os.chmod(probe, 0o555)
    worker.read_only_enforced = not worker.run(
        "probe_write", os.path.join(os.path.dirname(log), "probe.json"), dir=str(probe))["wrote"]
    os.chmod(probe, 0o755)
    yield worker
    worker.close()


def _temps(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if ".tmp" in n) if os.path.isdir(directory) else []


def _restore_permissions(directory) -> None:
    if os.path.isdir(directory):
        os.chmod(directory, os.stat(directory).st_mode | stat.S_IWUSR)


def _files_digest(directory) -> dict:
    out = {}
    for name in sorted(os.listdir(directory)):
        if not name.startswith(".") and os.path.isfile(os.path.join(directory, name)):
            with open(os.path.join(directory, name), "rb") as f:
                out[name] = f.read()
    return out


class _Recorder(tf.keras.callbacks.Callback):
    """After BackupAndRestore in the list: the weights training starts from."""

    def on_train_begin(self, logs=None):
        self.weights = weights_digest(self.model.state_dict().values())


def _run_fault(zygote, tmp_path, fault: str, writer: str, target: str, limit: int) -> dict:
    """Runs `writer` in a forked process under `fault`; returns what it reported."""
    fault_dir = target if writer in ("estimator", "backup") else os.path.dirname(target)
    args = {"fault": fault, "limit": limit, "fault_dir": fault_dir}
    result = str(tmp_path / "result.json")
    try:
        if writer == "estimator":
            return zygote.run("estimator_fault", result, dir=target, steps=6, after=2, **args)
        return zygote.run("keras_fault", result, op=writer, path=target, **args)
    finally:
        _restore_permissions(fault_dir)


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("fault", ["fsize", "readonly"])
def test_save_fails_naming_path_and_cause_and_the_previous_save_survives(
        zygote, tmp_path, fault, writer):
    if fault == "readonly" and not zygote.read_only_enforced:
        pytest.skip("running as root without setpriv: a read-only folder cannot be enforced")
    # What is on disk before the fault
    if writer == "estimator":
        target = str(tmp_path / "model")
        estimator(target).train(input_fn, steps=2)
        before = ckpt.latest_checkpoint(target)
        limit = os.path.getsize(before + ".safetensors") // 2
    elif writer in ("save", "save_weights", "model_checkpoint"):
        name = "m.weights.h5" if writer == "save_weights" else "m.keras"
        target = str(tmp_path / "saves" / name)
        model = keras_model()
        (model.save_weights if writer == "save_weights" else model.save)(target)
        before = _files_digest(os.path.dirname(target))
        limit = os.path.getsize(target) // 2
    else:
        target = str(tmp_path / "backup")
        keras_model().fit(X, Y, batch_size=8, epochs=1, verbose=0, callbacks=[
            tf.keras.callbacks.BackupAndRestore(target, save_freq=1, delete_checkpoint=False)])
        with open(os.path.join(target, "training_metadata.json")) as f:
            limit = os.path.getsize(os.path.join(target, json.load(f)["model_file"])) // 2

    outcome = _run_fault(zygote, tmp_path, fault, writer, target, limit)

    # An error naming the path and the cause
    assert outcome["error"] is not None, f"the {fault} fault went unnoticed"
    message = outcome["message"]
    assert CAUSES[fault] in message, f"the cause is not named: {outcome}"
    assert target in message, f"the path is not named: {outcome}"  # the file, or the folder
    directory = target if writer in ("estimator", "backup") else os.path.dirname(target)
    assert _temps(directory) == [], "the failed save left a temporary file"

    # The previous save is intact and loads; the next successful save leaves no temporary file
    if writer == "estimator":
        latest = ckpt.latest_checkpoint(target)
        tensors, _ = ckpt.load_checkpoint(latest)
        step = int(latest.rsplit("-", 1)[1])
        assert int(tensors["global_step"]) == step
        assert step >= int(before.rsplit("-", 1)[1])
        estimator(target).train(input_fn, steps=1)
        assert int(estimator(target).get_variable_value("global_step")) == step + 1
    elif writer == "backup":
        metadata, weights = read_backup(target)
        model, recorder = keras_model(), _Recorder()
        model.fit(X, Y, batch_size=8, epochs=metadata["initial_epoch"] + 1, verbose=0, callbacks=[
            tf.keras.callbacks.BackupAndRestore(target, save_freq=1, delete_checkpoint=False),
            recorder])
        assert recorder.weights == weights, "fit did not resume from the surviving backup"
    else:
        if writer == "model_checkpoint":  # the callback saved twice before the fault: m.keras
            tf.keras.models.load_model(target)  # holds the child's newest complete save
        else:
            assert _files_digest(os.path.dirname(target)) == before, "the previous save changed"
            if writer == "save":
                tf.keras.models.load_model(target)
            else:
                keras_model(compiled=False).load_weights(target)
        model = keras_model()
        (model.save_weights if writer == "save_weights" else model.save)(target)
    assert _temps(directory) == [], "a temporary file survived the next successful save"


# ---------------------------------------------------------------------------------------------
# The folder deleted while training
# ---------------------------------------------------------------------------------------------


def _delete(directory: str) -> None:
    """rm -r, again while a background writer (the summary thread) re-creates files in it."""
    for _ in range(50):
        shutil.rmtree(directory, ignore_errors=True)
        if not os.path.exists(directory):
            return
    raise AssertionError(f"could not delete {directory}")


class _DeleteAfterSteps(tf.estimator.SessionRunHook):
    def __init__(self, steps: int, *directories) -> None:
        self._steps, self._directories, self._seen = steps, directories, 0

    def after_run(self, run_context, run_values):
        self._seen += 1
        if self._seen == self._steps:
            for directory in self._directories:
                _delete(directory)


class _DeleteAfterBatches(tf.keras.callbacks.Callback):
    def __init__(self, batches: int, *directories) -> None:
        super().__init__()
        self._batches, self._directories, self._seen = batches, directories, 0

    def on_train_batch_begin(self, batch, logs=None):
        self._seen += 1
        if self._seen == self._batches:
            for directory in self._directories:
                _delete(directory)


def _loss_steps(logdir: str) -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(logdir)
    accumulator.Reload()
    return sorted(e.step for e in accumulator.Scalars("loss")) if "loss" in \
        accumulator.Tags()["scalars"] else []


def test_estimator_model_dir_deleted_while_training(tmp_path):
    """Either the fault is reported (naming model_dir and the cause), or training goes on and
    nothing written after the deletion is lost: checkpoints, summaries, resuming."""
    model_dir = str(tmp_path / "model")
    est = estimator(model_dir, save_summary_steps=1)
    est.train(input_fn, steps=2)
    try:
        est.train(input_fn, steps=4, hooks=[_DeleteAfterSteps(2, model_dir)])  # steps 3..6
    except Exception as error:  # the fault reported: the path and the cause are named
        assert model_dir in str(error) and (os.strerror(errno.ENOENT) in str(error)
                                            or "deleted" in str(error)), str(error)
        return
    # or training went on: then nothing written after the deletion may be lost
    latest = ckpt.latest_checkpoint(model_dir)
    assert latest is not None and latest.endswith("-6") and ckpt.checkpoint_exists(latest)
    assert {5, 6} <= set(_loss_steps(model_dir)), "the summaries after the deletion were lost"
    est.train(input_fn, steps=1)
    assert int(est.get_variable_value("global_step")) == 7


def test_keras_backup_and_checkpoint_folders_deleted_while_training(tmp_path):
    """Keras' writers create their folder on each save (as TF's ModelCheckpoint and checkpoint
    managers do): deleted mid-fit, the folders come back with complete files."""
    backup_dir, checkpoint_dir = str(tmp_path / "backup"), str(tmp_path / "checkpoints")
    model = keras_model()
    model.fit(X, Y, batch_size=8, epochs=2, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq=1, delete_checkpoint=False),
        tf.keras.callbacks.ModelCheckpoint(os.path.join(checkpoint_dir, "m.keras"), save_freq=1),
        _DeleteAfterBatches(3, backup_dir, checkpoint_dir)])
    metadata, weights = read_backup(backup_dir)
    assert (metadata["epoch"], metadata["batch"]) == (1, 7)  # the last batch's backup
    assert weights == weights_digest(model.state_dict().values())
    saved = tf.keras.models.load_model(os.path.join(checkpoint_dir, "m.keras"))
    assert weights_digest(saved.state_dict().values()) == weights
    assert _temps(backup_dir) == [] and _temps(checkpoint_dir) == []
    # model.save into a folder that no longer exists creates it
    shutil.rmtree(checkpoint_dir)
    model.save(os.path.join(checkpoint_dir, "again.keras"))
    tf.keras.models.load_model(os.path.join(checkpoint_dir, "again.keras"))
