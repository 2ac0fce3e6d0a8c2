"""BackupAndRestore: an interrupted fit resumes where it stopped, with the same result."""

import json
import os

import numpy as np
import pytest
import safetensors.torch
import torch
from torch import nn

from torchestimator.keras.callbacks import BackupAndRestore, Callback, CallbackList, LambdaCallback


class Interrupt(Callback):
    def __init__(self, epoch, batch=None):
        super().__init__()
        self.epoch, self.batch, self.current = epoch, batch, None

    def on_epoch_begin(self, epoch, logs=None):
        self.current = epoch
        if self.batch is None and epoch == self.epoch:
            raise RuntimeError("Interrupting!")

    def on_train_batch_begin(self, batch, logs=None):
        if self.batch is not None and (self.current, batch) == (self.epoch, self.batch):
            raise RuntimeError("Interrupting!")


def test_interrupted_fit_resumes_and_matches_uninterrupted(tmp_path, make_model, data, loop):
    x, y = data
    reference = make_model()
    loop.fit(reference, x, y, epochs=6)

    backup_dir = str(tmp_path / "backup")
    first = make_model()
    with pytest.raises(RuntimeError, match="Interrupting!"):
        loop.fit(first, x, y, epochs=6, callbacks=[BackupAndRestore(backup_dir), Interrupt(3)])
    files = sorted(os.listdir(backup_dir))
    assert files == [
        "backup-3.model.safetensors",
        "backup-3.optimizer.safetensors",
        "training_metadata.json",
    ]
    metadata = json.loads((tmp_path / "backup" / "training_metadata.json").read_text())
    assert (metadata["epoch"], metadata["initial_epoch"]) == (2, 3)

    resumed = make_model()  # a new process: fresh weights and optimizer
    history = loop.fit(resumed, x, y, epochs=6, callbacks=[BackupAndRestore(backup_dir)])
    assert history.epoch == [3, 4, 5]
    for got, want in zip(resumed.parameters(), reference.parameters()):
        assert torch.equal(got, want)
    assert resumed.optimizer.iterations == reference.optimizer.iterations == 24
    assert not os.path.exists(backup_dir)  # deleted after a completed fit


def test_restores_optimizer_state_exactly(tmp_path, make_model, data, loop):
    x, y = data
    model = make_model()
    loop.fit(
        model, x, y, epochs=2, callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)]
    )
    fresh = make_model(seed=5)
    CallbackList([BackupAndRestore(str(tmp_path))], model=fresh).on_train_begin()
    want, got = model.optimizer.state_dict(), fresh.optimizer.state_dict()
    assert got["iterations"] == want["iterations"] == 8
    for index, state in want["torch"]["state"].items():
        for key, value in state.items():
            assert torch.equal(got["torch"]["state"][index][key], value)
    for got_group, want_group in zip(got["torch"]["param_groups"], want["torch"]["param_groups"]):
        assert {k: list(v) if isinstance(v, tuple) else v for k, v in want_group.items()} == {
            k: list(v) if isinstance(v, tuple) else v for k, v in got_group.items()
        }
    assert fresh._initial_epoch == 2 and fresh._initial_step == 0


def test_keep_checkpoint_then_nothing_left_to_run(tmp_path, model, data, loop):
    x, y = data
    cb = BackupAndRestore(str(tmp_path / "b"), delete_checkpoint=False)
    loop.fit(model, x, y, epochs=2, callbacks=[cb])
    assert os.path.exists(tmp_path / "b" / "training_metadata.json")
    history = loop.fit(model, x, y, epochs=2, callbacks=[cb])
    assert history.epoch == []


def test_batch_level_backups(tmp_path, make_model, data, loop):
    x, y = data
    snapshots = {}
    state = {"epoch": 0}

    def remember(batch, logs):
        snapshots[(state["epoch"], batch)] = [p.detach().clone() for p in first.parameters()]

    first = make_model()
    cb = BackupAndRestore(str(tmp_path), save_freq=3)
    assert cb._implements_train_batch_hooks()
    spy = LambdaCallback(
        on_epoch_begin=lambda epoch, logs: state.update(epoch=epoch), on_batch_end=remember
    )
    with pytest.raises(RuntimeError):
        loop.fit(first, x, y, epochs=4, callbacks=[cb, spy, Interrupt(2, batch=1)])
    # 4 batches per epoch, a backup every 3: after (0, 2), (1, 1) and (2, 0)
    metadata = json.loads((tmp_path / "training_metadata.json").read_text())
    assert (metadata["epoch"], metadata["batch"]) == (2, 0)
    resumed = make_model(seed=9)
    CallbackList(
        [BackupAndRestore(str(tmp_path), save_freq=3)], model=resumed, steps=4
    ).on_train_begin()
    for got, want in zip(resumed.parameters(), snapshots[(2, 0)]):
        assert torch.equal(got, want)
    assert (resumed._initial_epoch, resumed._initial_step) == (2, 1)


def test_backup_at_last_batch_resumes_next_epoch(tmp_path, model):
    cb = BackupAndRestore(str(tmp_path), save_freq=2, delete_checkpoint=False)
    cbs = CallbackList([cb], model=model, epochs=3, steps=2)
    cbs.on_train_begin()
    cbs.on_epoch_begin(0)
    cbs.on_train_batch_end(0)
    cbs.on_train_batch_end(1)
    metadata = json.loads((tmp_path / "training_metadata.json").read_text())
    assert (metadata["initial_epoch"], metadata["initial_step"]) == (1, 0)


def test_failure_while_saving_keeps_previous_backup(tmp_path, make_model, data, loop, monkeypatch):
    x, y = data
    model = make_model()
    loop.fit(
        model, x, y, epochs=1, callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)]
    )
    saved = [p.detach().clone() for p in model.parameters()]

    def disk_full():
        raise OSError("disk full")

    # the next backup fails after its model file was written
    monkeypatch.setattr(model.optimizer, "state_dict", disk_full)
    with pytest.raises(OSError, match="disk full"):
        loop.fit(
            model,
            x,
            y,
            epochs=3,
            callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)],
        )
    assert sorted(os.listdir(tmp_path)) == [
        "backup-1.model.safetensors",
        "backup-1.optimizer.safetensors",
        "training_metadata.json",
    ]  # the half-written backup was removed, the previous one is untouched
    fresh = make_model(seed=3)
    CallbackList([BackupAndRestore(str(tmp_path))], model=fresh).on_train_begin()
    for got, want in zip(fresh.parameters(), saved):
        assert torch.equal(got, want)
    assert fresh._initial_epoch == 1


def test_corrupt_tensor_file_is_reported(tmp_path, model, data, loop):
    x, y = data
    loop.fit(
        model, x, y, epochs=1, callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)]
    )
    (tmp_path / "backup-1.model.safetensors").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="not a valid safetensors file"):
        CallbackList([BackupAndRestore(str(tmp_path))], model=model).on_train_begin()
    os.remove(tmp_path / "backup-1.model.safetensors")
    with pytest.raises(ValueError, match="cannot read .*backup-1.model.safetensors"):
        CallbackList([BackupAndRestore(str(tmp_path))], model=model).on_train_begin()


def test_files_are_safetensors_and_json_only(tmp_path, model, data, loop):
    x, y = data
    loop.fit(
        model, x, y, epochs=1, callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)]
    )
    for name in os.listdir(tmp_path):
        path = tmp_path / name
        if name.endswith(".json"):
            json.loads(path.read_text())
        else:
            assert name.endswith(".safetensors")
            assert safetensors.torch.load_file(str(path))


def test_errors(tmp_path, make_model, model, data, loop):
    with pytest.raises(ValueError, match="Empty or invalid `backup_dir`"):
        BackupAndRestore("")
    with pytest.raises(ValueError, match="Invalid value for argument `save_freq`"):
        BackupAndRestore(str(tmp_path), save_freq="batch")
    with pytest.raises(ValueError, match="save_before_preemption"):
        BackupAndRestore(str(tmp_path), save_before_preemption=True)
    x, y = data
    loop.fit(
        model,
        x,
        y,
        epochs=1,
        callbacks=[BackupAndRestore(str(tmp_path / "a"), delete_checkpoint=False)],
    )
    other = make_model()
    other.dense = nn.Linear(4, 5)
    with pytest.raises(ValueError, match="does not fit this model"):
        CallbackList([BackupAndRestore(str(tmp_path / "a"))], model=other).on_train_begin()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "training_metadata.json").write_text('{"epoch": 1}')
    with pytest.raises(ValueError, match="not a backup written by this callback"):
        CallbackList([BackupAndRestore(str(tmp_path / "c"))], model=model).on_train_begin()
    (tmp_path / "c" / "training_metadata.json").write_text("{broken")
    with pytest.raises(ValueError, match="cannot read the backup metadata"):
        CallbackList([BackupAndRestore(str(tmp_path / "c"))], model=model).on_train_begin()


# ---------------------------------------------------------------------------------------------
# Model.fit resumes inside an epoch (a backup every N batches), as TF 2.15's `_initial_step`
# ---------------------------------------------------------------------------------------------


def _keras_model():
    import torchestimator as tf

    torch.manual_seed(0)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
        tf.keras.layers.Dense(1),
    ])
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    return model


class _Seen(Callback):
    """After BackupAndRestore: the (epoch, batch) of every step, and the batch of the backup
    on disk after each one."""

    def __init__(self, backup_dir):
        super().__init__()
        self.backup_dir, self.batches, self.backups, self.epoch = backup_dir, [], [], None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_begin(self, batch, logs=None):
        self.batches.append((self.epoch, batch))

    def on_train_batch_end(self, batch, logs=None):
        with open(os.path.join(self.backup_dir, "training_metadata.json")) as f:
            self.backups.append(json.load(f)["batch"])


@pytest.mark.parametrize("source", ["arrays", "dataset"])
def test_fit_resumes_inside_the_epoch_without_training_again_on_its_first_batches(tmp_path, source):
    """64 samples, 8 batches an epoch, a backup every 2 batches; interrupted before batch 4 of
    epoch 1 (the last backup after its batch 3). The resumed fit trains batches 4..7 only, so
    its weights are exactly those of an uninterrupted fit, after the same 16 steps."""
    import torchestimator as tf

    x = torch.randn(64, 4, generator=torch.Generator().manual_seed(1)).numpy()
    y = x @ np.linspace(-1, 1, 4, dtype=np.float32)[:, None]

    def fit(model, **kwargs):
        if source == "arrays":
            return model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0, **kwargs)
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
        return model.fit(dataset, epochs=2, verbose=0, **kwargs)

    reference = _keras_model()
    fit(reference)
    backup_dir = str(tmp_path / "backup")
    with pytest.raises(RuntimeError, match="Interrupting!"):
        fit(_keras_model(), callbacks=[BackupAndRestore(backup_dir, save_freq=2), Interrupt(1, batch=4)])
    metadata = json.loads((tmp_path / "backup" / "training_metadata.json").read_text())
    assert (metadata["initial_epoch"], metadata["initial_step"]) == (1, 4)

    resumed, seen = _keras_model(), _Seen(backup_dir)
    history = fit(resumed, callbacks=[BackupAndRestore(backup_dir, save_freq=2, delete_checkpoint=False), seen])
    assert history.epoch == [1]
    assert seen.batches == [(1, 4), (1, 5), (1, 6), (1, 7)]  # numbered as in TF, from the backup on
    assert seen.backups == [3, 5, 5, 7]  # save_freq counts from the resumed batch
    assert int(resumed.optimizer.iterations) == int(reference.optimizer.iterations) == 16
    for got, want in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_array_equal(got, want)


def test_fit_with_a_generator_skips_the_batches_the_backup_covers(tmp_path):
    x = np.arange(64 * 4, dtype=np.float32).reshape(64, 4) / 256
    y = x[:, :1]
    fed = []

    def batches():
        for start in range(0, 64, 8):
            fed.append(start // 8)
            yield x[start:start + 8], y[start:start + 8]

    backup_dir = str(tmp_path / "backup")
    model = _keras_model()
    with pytest.raises(RuntimeError):
        model.fit(batches(), epochs=1, steps_per_epoch=8, verbose=0,
                  callbacks=[BackupAndRestore(backup_dir, save_freq=1), Interrupt(0, batch=5)])
    fed.clear()
    resumed, seen = _keras_model(), _Seen(backup_dir)
    resumed.fit(batches(), epochs=1, steps_per_epoch=8, verbose=0,
                callbacks=[BackupAndRestore(backup_dir, save_freq=1), seen])
    assert seen.batches == [(0, 5), (0, 6), (0, 7)]
    assert fed == list(range(8))  # the first 5 were read and dropped, not trained on
    assert int(resumed.optimizer.iterations) == 8
