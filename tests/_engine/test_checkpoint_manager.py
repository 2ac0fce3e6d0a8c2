"""The Estimator's checkpoint files: layout, retention, index format, corruption fallback and
robustness to kill -9 in the middle of a save."""

import json
import logging
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from safetensors.torch import load_file

from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine.checkpoint import (
    CheckpointManager,
    CorruptCheckpointError,
    checkpoint_exists,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from torchestimator._engine.state_io import sha256, tensors_to_bytes

LOGGER = "torchestimator._engine.checkpoint"


class FakeClock:
    def __init__(self, t=0.0):
        self.t = t

    def __call__(self):
        return self.t


def _state(step, n=4):
    g = torch.Generator().manual_seed(step)
    return {
        "dnn/hiddenlayer_0/kernel": torch.randn(n, 3, generator=g),
        "dnn/hiddenlayer_0/bias": torch.zeros(3),
        "optimizer/Adagrad/accumulator": torch.full((n, 3), 0.1),
    }


def _ckpt_files(directory):
    return sorted(f for f in os.listdir(directory) if f.startswith("model.ckpt"))


# ---------------------------------------------------------------------------------------------
# Round trip
# ---------------------------------------------------------------------------------------------


def test_round_trip_tensors_and_metadata(tmp_path):
    mgr = CheckpointManager(str(tmp_path))
    tensors = {
        "w": torch.randn(5, 2),
        "ids": torch.arange(7, dtype=torch.int64),
        "mask": torch.tensor([True, False]),
        "half": torch.ones(3, dtype=torch.float16),
        "bf": torch.ones(2, dtype=torch.bfloat16),
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 4),
        "rng/torch": torch.get_rng_state(),
    }
    extra = {"optimizer": {"lr": 0.1, "param_groups": [{"params": [0, 1]}]}, "input_position": 17}
    prefix = mgr.save(42, tensors, extra=extra)

    assert prefix == os.path.join(str(tmp_path), "model.ckpt-42")
    assert os.path.exists(prefix + ".safetensors") and os.path.exists(prefix + ".json")
    loaded, meta = load_checkpoint(prefix)
    assert set(loaded) == set(tensors) | {"global_step"}
    for name, value in tensors.items():
        assert loaded[name].dtype == value.dtype
        assert loaded[name].shape == value.shape
        assert torch.equal(loaded[name], value)
    # A scalar int64 global_step, as in a TF checkpoint (safetensors holds 0-dim tensors).
    assert loaded["global_step"].dtype == torch.int64 and loaded["global_step"].dim() == 0
    assert int(loaded["global_step"]) == 42
    assert meta["global_step"] == 42
    assert meta["extra"] == extra
    assert meta["format_version"] == 1
    assert meta["size_bytes"] == os.path.getsize(prefix + ".safetensors")
    assert len(meta["sha256"]) == 64
    assert isinstance(meta["timestamp"], float)
    # The tensor file is plain safetensors, readable without torchestimator.
    assert torch.equal(load_file(prefix + ".safetensors")["w"], tensors["w"])
    assert latest_checkpoint(str(tmp_path)) == prefix
    assert mgr.latest_checkpoint == prefix
    assert checkpoint_exists(prefix)


def test_load_accepts_a_directory(tmp_path):
    mgr = CheckpointManager(tmp_path)
    mgr.save(1, _state(1))
    mgr.save(2, _state(2))
    tensors, meta = load_checkpoint(str(tmp_path))
    assert meta["global_step"] == 2
    assert torch.equal(tensors["dnn/hiddenlayer_0/kernel"], _state(2)["dnn/hiddenlayer_0/kernel"])


def test_global_step_tensor_given_by_the_caller_must_agree(tmp_path):
    mgr = CheckpointManager(tmp_path)
    mgr.save(3, {"global_step": torch.tensor(3, dtype=torch.int64), "w": torch.ones(1)})
    with pytest.raises(ValueError, match=r"tensors\['global_step'\] holds 4 but `global_step` is 3"):
        mgr.save(3, {"global_step": torch.tensor(4), "w": torch.ones(1)})


# ---------------------------------------------------------------------------------------------
# Retention
# ---------------------------------------------------------------------------------------------


def test_keep_checkpoint_max_2_leaves_the_last_two_as_tf(tmp_path):
    mgr = CheckpointManager(tmp_path, max_to_keep=2)
    for step in [0, 3, 6, 9, 12, 15, 18, 21, 23, 25]:
        mgr.save(step, _state(step))
    assert _ckpt_files(tmp_path) == [
        "model.ckpt-23.json",
        "model.ckpt-23.safetensors",
        "model.ckpt-25.json",
        "model.ckpt-25.safetensors",
    ]
    assert mgr.checkpoints == [os.path.join(tmp_path, "model.ckpt-23"), os.path.join(tmp_path, "model.ckpt-25")]
    assert latest_checkpoint(tmp_path) == os.path.join(tmp_path, "model.ckpt-25")


@pytest.mark.parametrize("max_to_keep", [0, None])
def test_max_to_keep_zero_or_none_keeps_all(tmp_path, max_to_keep):
    mgr = CheckpointManager(tmp_path, max_to_keep=max_to_keep)
    for step in range(8):
        mgr.save(step, _state(step))
    assert len(_ckpt_files(tmp_path)) == 16
    assert [os.path.basename(p) for p in mgr.checkpoints] == [f"model.ckpt-{s}" for s in range(8)]


def test_resaving_a_step_overwrites_it_and_makes_it_newest(tmp_path):
    mgr = CheckpointManager(tmp_path, max_to_keep=3)
    for step in (1, 2, 3):
        mgr.save(step, _state(step))
    prefix = mgr.save(2, {"w": torch.full((2,), 7.0)}, extra={"again": True})
    assert [os.path.basename(p) for p in mgr.checkpoints] == ["model.ckpt-1", "model.ckpt-3", "model.ckpt-2"]
    tensors, meta = load_checkpoint(prefix)
    assert meta["extra"] == {"again": True}
    assert set(tensors) == {"w", "global_step"}
    assert latest_checkpoint(tmp_path) == prefix
    mgr.save(4, _state(4))  # the oldest in the queue (step 1) goes
    assert [os.path.basename(p) for p in mgr.checkpoints] == ["model.ckpt-3", "model.ckpt-2", "model.ckpt-4"]
    assert not os.path.exists(os.path.join(tmp_path, "model.ckpt-1.json"))


class _Killed(BaseException):
    """Stands for SIGKILL at one rename: nothing after it runs."""


@pytest.mark.parametrize("killed_at", [1, 2, 3])
def test_an_overwrite_killed_between_its_renames_leaves_a_readable_checkpoint(tmp_path, monkeypatch, killed_at):
    # A resumed run re-saves the step it restored (as TF does), with other bytes (RNG states):
    # the two files cannot be renamed at once, and a kill between them must not leave a
    # tensor file whose metadata describes the other one (CI saw the run fall back a step).
    from torchestimator._engine.checkpoint import _format

    mgr = CheckpointManager(tmp_path, max_to_keep=3)
    mgr.save(1, _state(1))
    prefix = mgr.save(2, _state(2))
    real_replace, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == killed_at:
            raise _Killed
        real_replace(src, dst)

    monkeypatch.setattr(_format.os, "replace", replace)
    with pytest.raises(_Killed):
        _format.write_checkpoint(prefix, {"w": torch.full((2,), 7.0), "global_step": torch.tensor(2)}, 2)
    monkeypatch.setattr(_format.os, "replace", real_replace)
    _format._VERIFIED.clear()
    tensors, meta = load_checkpoint(prefix)
    assert meta["global_step"] == 2
    new_in_place = killed_at > 2  # the tensors were renamed (the second rename) before the kill
    assert set(tensors) == ({"w", "global_step"} if new_in_place else set(_state(2)) | {"global_step"})
    assert checkpoint_exists(prefix) and latest_checkpoint(tmp_path) == prefix
    assert load_variable(prefix, "global_step") == 2 and dict(list_variables(prefix))["global_step"] == []


def test_a_reader_between_the_renames_of_an_overwrite_reads_the_new_checkpoint(tmp_path, monkeypatch):
    from torchestimator._engine.checkpoint import _format

    prefix = CheckpointManager(tmp_path).save(2, _state(2))
    real_replace, seen = os.replace, []

    def replace(src, dst):
        real_replace(src, dst)
        if dst == prefix + ".safetensors":  # new tensors, old metadata still in place
            _format._VERIFIED.clear()
            seen.append((load_checkpoint(prefix)[0]["w"].tolist(), checkpoint_exists(prefix)))

    monkeypatch.setattr(_format.os, "replace", replace)
    _format.write_checkpoint(prefix, {"w": torch.full((2,), 7.0), "global_step": torch.tensor(2)}, 2)
    assert seen == [([7.0, 7.0], True)]
    assert not os.path.exists(prefix + ".json.next")
    assert load_checkpoint(prefix)[0]["w"].tolist() == [7.0, 7.0]


def test_keep_checkpoint_every_n_hours_preserves_with_injected_clock(tmp_path):
    clock = FakeClock(0.0)
    mgr = CheckpointManager(tmp_path, max_to_keep=2, keep_checkpoint_every_n_hours=1.0, clock=clock)
    for i in range(7):  # a checkpoint every half hour: t = 0, 1800, ..., 10800
        clock.t = i * 1800.0
        mgr.save(i * 10, _state(i))
    # Checkpoints at t=3600 (step 20) and t=7200 (step 40) are each an hour after the last
    # preserved one: their files stay, but they leave the index (as TF's CheckpointManager).
    steps_on_disk = sorted(int(f.split("-")[1].split(".")[0]) for f in _ckpt_files(tmp_path))
    assert sorted(set(steps_on_disk)) == [20, 40, 50, 60]
    assert [os.path.basename(p) for p in mgr.checkpoints] == ["model.ckpt-50", "model.ckpt-60"]
    index = (tmp_path / "checkpoint").read_text()
    assert "last_preserved_timestamp: 7200.0" in index
    assert "model.ckpt-20" not in index
    assert load_checkpoint(os.path.join(tmp_path, "model.ckpt-20"))[1]["global_step"] == 20

    # Resume: a new manager picks up the kept list and the preservation clock.
    clock.t = 12600.0
    mgr2 = CheckpointManager(tmp_path, max_to_keep=2, keep_checkpoint_every_n_hours=1.0, clock=clock)
    assert mgr2.checkpoints == mgr.checkpoints
    mgr2.save(70, _state(7))  # pops step 50 (t=9000): under an hour after 7200 -> deleted
    assert not os.path.exists(os.path.join(tmp_path, "model.ckpt-50.json"))
    clock.t = 14400.0
    mgr2.save(80, _state(8))  # pops step 60 (t=10800): an hour after 7200 -> preserved
    assert os.path.exists(os.path.join(tmp_path, "model.ckpt-60.json"))
    assert [os.path.basename(p) for p in mgr2.checkpoints] == ["model.ckpt-70", "model.ckpt-80"]


def test_default_every_n_hours_is_effectively_off(tmp_path):
    clock = FakeClock(1e9)
    mgr = CheckpointManager(tmp_path, max_to_keep=1, clock=clock)
    for i in range(4):
        clock.t += 3600.0 * 24
        mgr.save(i, _state(i))
    assert _ckpt_files(tmp_path) == ["model.ckpt-3.json", "model.ckpt-3.safetensors"]


# ---------------------------------------------------------------------------------------------
# Index file
# ---------------------------------------------------------------------------------------------


def _checkpoint_state_class():
    """TF's CheckpointState proto (tensorflow/python/checkpoint/checkpoint_state.proto)."""
    fdp = descriptor_pb2.FileDescriptorProto(name="te_test_checkpoint_state.proto", package="te_test", syntax="proto3")
    msg = fdp.message_type.add(name="CheckpointState")
    label_opt = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
    label_rep = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
    t_str = descriptor_pb2.FieldDescriptorProto.TYPE_STRING
    t_dbl = descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE
    msg.field.add(name="model_checkpoint_path", number=1, type=t_str, label=label_opt)
    msg.field.add(name="all_model_checkpoint_paths", number=2, type=t_str, label=label_rep)
    msg.field.add(name="all_model_checkpoint_timestamps", number=3, type=t_dbl, label=label_rep)
    msg.field.add(name="last_preserved_timestamp", number=4, type=t_dbl, label=label_opt)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("te_test.CheckpointState"))


def test_index_file_is_tf_checkpoint_state_text(tmp_path):
    clock = FakeClock(1700000000.25)
    mgr = CheckpointManager(tmp_path, max_to_keep=2, clock=clock)
    for step in (100, 200, 300):
        clock.t += 10.0
        mgr.save(step, _state(1))
    text = (tmp_path / "checkpoint").read_text()
    assert text == (
        'model_checkpoint_path: "model.ckpt-300"\n'
        'all_model_checkpoint_paths: "model.ckpt-200"\n'
        'all_model_checkpoint_paths: "model.ckpt-300"\n'
        "all_model_checkpoint_timestamps: 1700000020.25\n"
        "all_model_checkpoint_timestamps: 1700000030.25\n"
        "last_preserved_timestamp: 1700000000.25\n"
    )
    # protobuf's own text parser reads it as TF's CheckpointState.
    state = text_format.Parse(text, _checkpoint_state_class()())
    assert state.model_checkpoint_path == "model.ckpt-300"
    assert list(state.all_model_checkpoint_paths) == ["model.ckpt-200", "model.ckpt-300"]
    assert list(state.all_model_checkpoint_timestamps) == [1700000020.25, 1700000030.25]


def test_index_written_by_tf_with_absolute_paths_is_read(tmp_path):
    CheckpointManager(tmp_path).save(5, _state(5))
    absolute = os.path.join(str(tmp_path), "model.ckpt-5")
    (tmp_path / "checkpoint").write_text(
        f'model_checkpoint_path: "{absolute}"\nall_model_checkpoint_paths: "{absolute}"\n'
    )
    assert latest_checkpoint(str(tmp_path)) == absolute
    mgr = CheckpointManager(tmp_path)
    assert mgr.checkpoints == [absolute]
    mgr.save(6, _state(6))
    assert 'all_model_checkpoint_paths: "model.ckpt-5"' in (tmp_path / "checkpoint").read_text()


def test_latest_filename_argument(tmp_path):
    CheckpointManager(tmp_path).save(1, _state(1))
    os.replace(tmp_path / "checkpoint", tmp_path / "my_state")
    (tmp_path / "checkpoint").write_text("garbage that is not a CheckpointState\n")
    assert latest_checkpoint(str(tmp_path), latest_filename="my_state") == os.path.join(tmp_path, "model.ckpt-1")


# ---------------------------------------------------------------------------------------------
# Corruption and fallback
# ---------------------------------------------------------------------------------------------


def _three(tmp_path):
    mgr = CheckpointManager(tmp_path, max_to_keep=5)
    return [mgr.save(step, _state(step, n=50)) for step in (10, 20, 30)]


def _flip_byte(path, offset=-5):
    with open(path, "r+b") as f:
        f.seek(offset, os.SEEK_END)
        b = f.read(1)
        f.seek(offset, os.SEEK_END)
        f.write(bytes([b[0] ^ 0xFF]))


@pytest.mark.parametrize("damage", ["bitflip", "truncate", "no_json", "no_tensors", "bad_json", "empty_json"])
def test_damaged_newest_checkpoint_warns_and_falls_back(tmp_path, caplog, damage):
    p10, p20, p30 = _three(tmp_path)
    if damage == "bitflip":
        _flip_byte(p30 + ".safetensors")
    elif damage == "truncate":
        with open(p30 + ".safetensors", "r+b") as f:
            f.truncate(100)
    elif damage == "no_json":
        os.remove(p30 + ".json")
    elif damage == "no_tensors":
        os.remove(p30 + ".safetensors")
    elif damage == "bad_json":
        (tmp_path / "model.ckpt-30.json").write_text('{"global_step": 30, "sha2')
    elif damage == "empty_json":
        (tmp_path / "model.ckpt-30.json").write_text("")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p20
    assert any(p30 in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert not checkpoint_exists(p30)
    with pytest.raises(CorruptCheckpointError) as info:
        load_checkpoint(p30)
    assert p30 in str(info.value)
    assert load_checkpoint(p20)[1]["global_step"] == 20
    # A manager resuming in this folder starts from the newest complete checkpoint.
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert CheckpointManager(tmp_path).latest_checkpoint == p20


def test_error_messages_say_what_is_wrong(tmp_path):
    _, _, p30 = _three(tmp_path)
    _flip_byte(p30 + ".safetensors")
    with pytest.raises(CorruptCheckpointError, match="fails its checksum"):
        load_checkpoint(p30)
    with open(p30 + ".safetensors", "r+b") as f:
        f.truncate(10)
    with pytest.raises(CorruptCheckpointError, match=r"truncated.*10 bytes"):
        load_checkpoint(p30)
    os.remove(p30 + ".json")
    with pytest.raises(CorruptCheckpointError, match="metadata file .* is missing"):
        load_checkpoint(p30)
    assert isinstance(CorruptCheckpointError("x"), ValueError)


def test_every_checkpoint_damaged_returns_none(tmp_path, caplog):
    for p in _three(tmp_path):
        os.remove(p + ".json")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) is None


def test_missing_index_scans_the_folder(tmp_path):
    _, _, p30 = _three(tmp_path)
    os.remove(tmp_path / "checkpoint")
    assert latest_checkpoint(str(tmp_path)) == p30


def test_corrupt_index_scans_the_folder(tmp_path, caplog):
    _, p20, p30 = _three(tmp_path)
    (tmp_path / "checkpoint").write_bytes(b"\x00\xff model_checkpoint_path: \"model.ck")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p30
    _flip_byte(p30 + ".safetensors")
    assert latest_checkpoint(str(tmp_path)) == p20


def test_index_naming_a_deleted_checkpoint_falls_back(tmp_path, caplog):
    _, p20, p30 = _three(tmp_path)
    for suffix in (".json", ".safetensors"):
        os.remove(p30 + suffix)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p20
    assert any(p30 in r.getMessage() for r in caplog.records)


def _rewrite_metadata(prefix, change, rehash=False):
    with open(prefix + ".json", encoding="utf-8") as f:
        meta = json.load(f)
    change(meta)
    if rehash:
        meta["metadata_sha256"] = ckpt.metadata_checksum(meta)
    with open(prefix + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)


def _legacy(meta):
    """As a checkpoint written before `metadata_sha256` existed."""
    del meta["metadata_sha256"]


def test_metadata_carries_a_checksum_of_its_own_fields(tmp_path):
    prefix = CheckpointManager(tmp_path).save(3, _state(3), extra={"input_position": 24, "t": (1, 2)})
    meta = json.loads((tmp_path / "model.ckpt-3.json").read_text())
    assert meta["metadata_sha256"] == ckpt.metadata_checksum(meta)
    assert load_checkpoint(prefix)[1]["extra"] == {"input_position": 24, "t": [1, 2]}


@pytest.mark.parametrize("change", [
    lambda m: m["extra"].update(input_position=1000),
    lambda m: m.update(timestamp=m["timestamp"] + 1),
    lambda m: m.update(global_step=29),
    lambda m: m.update(metadata_sha256="0" * 64),
    lambda m: m.update(metadata_sha25=m.pop("metadata_sha256")),  # the key itself damaged
], ids=["extra", "timestamp", "global_step", "checksum", "checksum-key"])
def test_changed_metadata_is_detected_and_the_previous_checkpoint_used(tmp_path, caplog, change):
    _, p20, p30 = _three(tmp_path)
    _rewrite_metadata(p30, change)
    with pytest.raises(CorruptCheckpointError) as info:
        load_checkpoint(p30)
    assert p30 + ".json" in str(info.value)
    assert not checkpoint_exists(p30)
    with pytest.raises(CorruptCheckpointError, match=re.escape(p30)):
        list_variables(p30)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p20
    assert any(p30 in r.getMessage() for r in caplog.records)


def test_metadata_without_checksum_still_loads(tmp_path, caplog):
    """Checkpoints written before `metadata_sha256` (the same fields, no checksum) load."""
    _, _, p30 = _three(tmp_path)
    _rewrite_metadata(p30, _legacy)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p30
    assert not caplog.records
    assert load_checkpoint(p30)[1]["global_step"] == 30
    assert checkpoint_exists(p30) and list_variables(p30)


def test_global_step_that_disagrees_with_the_tensor_file_is_reported(tmp_path, caplog):
    """Caught without the metadata checksum too (an old file, or one rewritten with a
    consistent checksum): the step in the JSON is compared with the tensor file's."""
    _, p20, p30 = _three(tmp_path)
    _rewrite_metadata(p30, lambda m: m.update(global_step=7), rehash=True)
    for read in (load_checkpoint, list_variables, lambda p: load_variable(p, "global_step")):
        with pytest.raises(CorruptCheckpointError) as info:
            read(p30)
        message = str(info.value)
        assert p30 + ".json" in message and p30 + ".safetensors" in message, message
        assert "global_step 7" in message and "global_step 30" in message, message
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p20
    # an old file whose header has no step: the `global_step` tensor is compared at load
    prefix = str(tmp_path / "old-5")
    data = tensors_to_bytes({"w": torch.ones(2), "global_step": torch.tensor(5)})
    (tmp_path / "old-5.safetensors").write_bytes(data)
    (tmp_path / "old-5.json").write_text(json.dumps({
        "format": "torchestimator.checkpoint", "format_version": 1, "global_step": 6, "extra": {},
        "tensors_file": "old-5.safetensors", "sha256": sha256(data), "size_bytes": len(data),
        "timestamp": 0.0}))
    with pytest.raises(CorruptCheckpointError, match=r"global_step 6.*old-5\.safetensors holds global_step 5"):
        load_checkpoint(prefix)


def _index(directory, latest, paths):
    text = f'model_checkpoint_path: "{latest}"\n' + "".join(
        f'all_model_checkpoint_paths: "{p}"\n' for p in paths)
    (directory / "checkpoint").write_text(text)


def test_index_whose_latest_is_not_its_last_path_warns_and_uses_the_newest(tmp_path, caplog):
    """A damaged index ('model.ckpt-30' -> 'model.ckpt-20') never silently costs steps."""
    _, p20, p30 = _three(tmp_path)
    _index(tmp_path, "model.ckpt-20", ["model.ckpt-10", "model.ckpt-20", "model.ckpt-30"])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p30
    index = os.path.join(tmp_path, "checkpoint")
    assert any(index in r.getMessage() for r in caplog.records), caplog.records
    caplog.clear()
    # the last listed path damaged instead: the newest complete checkpoint, with a warning
    _index(tmp_path, "model.ckpt-30", ["model.ckpt-10", "model.ckpt-20", "model.ckpt-20"])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == p30
        # a manager resuming here starts from it, keeps it, and deletes it in turn
        mgr = CheckpointManager(tmp_path, max_to_keep=3)
    assert any(index in r.getMessage() for r in caplog.records)
    assert mgr.latest_checkpoint == p30
    for step in (40, 50, 60):
        mgr.save(step, _state(step))
    assert _ckpt_files(tmp_path) == [f"model.ckpt-{s}.{e}" for s in (40, 50, 60) for e in ("json", "safetensors")]


def test_index_listing_a_newer_checkpoint_than_its_latest_warns(tmp_path, caplog):
    clock = FakeClock(100.0)
    mgr = CheckpointManager(tmp_path, clock=clock)
    for step in (1, 2, 3):
        clock.t += 1
        mgr.save(step, _state(step))
    # both fields damaged alike: still a listed checkpoint of a higher step, written later
    _index(tmp_path, "model.ckpt-2", ["model.ckpt-1", "model.ckpt-3", "model.ckpt-2"])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == os.path.join(tmp_path, "model.ckpt-3")
    assert any(os.path.join(tmp_path, "checkpoint") in r.getMessage() for r in caplog.records)


def test_index_keeps_tensorflow_semantics(tmp_path, caplog):
    """The index decides, as in TF: a lower step saved later (a new series numbered from 1,
    or save(checkpoint_number=...)), a checkpoint written after the index without it (a
    crash before the index was rewritten), another series, a custom index file name."""
    clock = FakeClock(100.0)
    mgr = CheckpointManager(tmp_path, max_to_keep=None, clock=clock)
    for step in (5, 6):
        clock.t += 1
        mgr.save(step, _state(step))
    clock.t += 1
    mgr.save(2, _state(2))  # lower, written last
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert latest_checkpoint(str(tmp_path)) == os.path.join(tmp_path, "model.ckpt-2")
        index = (tmp_path / "checkpoint").read_text()
        ckpt.write_checkpoint(str(tmp_path / "model.ckpt-9"), _state(9), 9)  # no index update
        ckpt.write_checkpoint(str(tmp_path / "other-50"), _state(50), 50)
        assert latest_checkpoint(str(tmp_path)) == os.path.join(tmp_path, "model.ckpt-2")
        os.replace(tmp_path / "checkpoint", tmp_path / "state")
        assert latest_checkpoint(str(tmp_path), latest_filename="state") == os.path.join(tmp_path, "model.ckpt-2")
    assert not caplog.records
    assert index.endswith('all_model_checkpoint_paths: "model.ckpt-2"\n' + "".join(
        f"all_model_checkpoint_timestamps: {t}\n" for t in (101.0, 102.0, 103.0)) + "last_preserved_timestamp: 100.0\n")


def test_write_index_puts_the_latest_last_as_tensorflow(tmp_path):
    ckpt.write_index(str(tmp_path), str(tmp_path / "m-3"), [str(tmp_path / "m-3"), str(tmp_path / "m-1")])
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "m-3"\nall_model_checkpoint_paths: "m-3"\n'
        'all_model_checkpoint_paths: "m-1"\nall_model_checkpoint_paths: "m-3"\n')
    ckpt.write_index(str(tmp_path), "m-4", [])
    assert (tmp_path / "checkpoint").read_text() == 'model_checkpoint_path: "m-4"\nall_model_checkpoint_paths: "m-4"\n'


def test_no_checkpoint_at_all(tmp_path):
    assert latest_checkpoint(str(tmp_path)) is None
    assert latest_checkpoint(str(tmp_path / "does_not_exist")) is None
    with pytest.raises(FileNotFoundError, match="No complete checkpoint in directory"):
        load_checkpoint(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="No checkpoint at"):
        load_checkpoint(str(tmp_path / "model.ckpt-3"))
    assert not checkpoint_exists(str(tmp_path / "model.ckpt-3"))


class _Boom:
    """Unpickling this creates a file: proof that a loader unpickled."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_loading_never_unpickles(tmp_path):
    mgr = CheckpointManager(tmp_path)
    prefix = mgr.save(1, {"w": torch.ones(2)})
    marker = tmp_path / "unpickled"
    payload_path = tmp_path / "payload.pt"
    torch.save({"w": torch.ones(2), "boom": _Boom(str(marker))}, payload_path)
    payload = payload_path.read_bytes()
    (tmp_path / "model.ckpt-1.safetensors").write_bytes(payload)
    meta = json.loads((tmp_path / "model.ckpt-1.json").read_text())
    meta["sha256"] = sha256(payload)
    meta["size_bytes"] = len(payload)
    meta["metadata_sha256"] = ckpt.metadata_checksum(meta)  # a consistent forgery
    (tmp_path / "model.ckpt-1.json").write_text(json.dumps(meta))
    with pytest.raises(CorruptCheckpointError, match="not a valid safetensors file"):
        load_checkpoint(prefix)
    with pytest.raises(CorruptCheckpointError):
        list_variables(prefix)
    assert not marker.exists()


# ---------------------------------------------------------------------------------------------
# Resume
# ---------------------------------------------------------------------------------------------


def test_manager_resumes_from_the_index(tmp_path):
    mgr = CheckpointManager(tmp_path, max_to_keep=3)
    for step in (1, 2, 3):
        mgr.save(step, _state(step))
    mgr2 = CheckpointManager(tmp_path, max_to_keep=3)
    assert mgr2.checkpoints == mgr.checkpoints
    assert mgr2.latest_checkpoint == os.path.join(tmp_path, "model.ckpt-3")
    mgr2.save(4, _state(4))
    mgr2.save(5, _state(5))
    assert [os.path.basename(p) for p in mgr2.checkpoints] == ["model.ckpt-3", "model.ckpt-4", "model.ckpt-5"]
    assert not os.path.exists(os.path.join(tmp_path, "model.ckpt-1.safetensors"))


def test_manager_without_index_recovers_by_scanning_and_cleans_temp_files(tmp_path):
    mgr = CheckpointManager(tmp_path, max_to_keep=5)
    for step in (1, 2, 3):
        mgr.save(step, _state(step))
    os.remove(tmp_path / "checkpoint")
    os.remove(tmp_path / "model.ckpt-2.json")  # an incomplete one is not recovered
    (tmp_path / ".tmp-ckpt-abandoned").write_bytes(b"x" * 100)
    mgr2 = CheckpointManager(tmp_path, max_to_keep=2)
    assert not (tmp_path / ".tmp-ckpt-abandoned").exists()
    assert [os.path.basename(p) for p in mgr2.checkpoints] == ["model.ckpt-1", "model.ckpt-3"]
    assert mgr2.latest_checkpoint == os.path.join(tmp_path, "model.ckpt-3")
    mgr2.save(4, _state(4))
    assert [os.path.basename(p) for p in mgr2.checkpoints] == ["model.ckpt-3", "model.ckpt-4"]


def test_custom_basename(tmp_path):
    mgr = CheckpointManager(tmp_path, checkpoint_basename="keras.ckpt")
    prefix = mgr.save(7, _state(7))
    assert os.path.basename(prefix) == "keras.ckpt-7"
    assert latest_checkpoint(tmp_path) == prefix


# ---------------------------------------------------------------------------------------------
# list_variables / load_variable
# ---------------------------------------------------------------------------------------------


def test_list_variables_and_load_variable(tmp_path):
    mgr = CheckpointManager(tmp_path)
    state = _state(3)
    state["bf"] = torch.tensor([1.5, 2.0], dtype=torch.bfloat16)
    prefix = mgr.save(3, state)
    expected = sorted([(name, list(t.shape)) for name, t in state.items()] + [("global_step", [])])
    assert list_variables(prefix) == expected
    assert list_variables(str(tmp_path)) == expected
    kernel = load_variable(str(tmp_path), "dnn/hiddenlayer_0/kernel")
    assert isinstance(kernel, np.ndarray)
    np.testing.assert_array_equal(kernel, state["dnn/hiddenlayer_0/kernel"].numpy())
    assert load_variable(prefix, "global_step") == 3
    bf = load_variable(prefix, "bf")
    assert bf.dtype == np.float32
    np.testing.assert_array_equal(bf, [1.5, 2.0])


def test_load_variable_unknown_name_lists_similar_names(tmp_path):
    prefix = CheckpointManager(tmp_path).save(3, _state(3))
    with pytest.raises(KeyError, match=r"dnn/hiddenlayer_0/kernal.*dnn/hiddenlayer_0/kernel"):
        load_variable(prefix, "dnn/hiddenlayer_0/kernal")
    with pytest.raises(FileNotFoundError):
        load_variable(str(tmp_path / "empty_dir_missing"), "x")


# ---------------------------------------------------------------------------------------------
# Argument errors
# ---------------------------------------------------------------------------------------------


def test_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="max_to_keep.*-1"):
        CheckpointManager(tmp_path, max_to_keep=-1)
    with pytest.raises(ValueError, match="keep_checkpoint_every_n_hours.*0"):
        CheckpointManager(tmp_path, keep_checkpoint_every_n_hours=0)
    with pytest.raises(ValueError, match="checkpoint_basename"):
        CheckpointManager(tmp_path, checkpoint_basename="a/b")
    mgr = CheckpointManager(tmp_path)
    with pytest.raises(ValueError, match="global_step.*-1"):
        mgr.save(-1, {})
    with pytest.raises(ValueError, match="global_step.*'3'"):
        mgr.save("3", {})
    with pytest.raises(TypeError, match="entry 'w' is a ndarray"):
        mgr.save(1, {"w": np.ones(2)})
    with pytest.raises(TypeError, match="JSON-serializable"):
        mgr.save(1, {"w": torch.ones(1)}, extra={"f": object()})
    assert mgr.save(torch.tensor(9), {"w": torch.ones(1)}).endswith("model.ckpt-9")


# ---------------------------------------------------------------------------------------------
# kill -9 robustness
# ---------------------------------------------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import sys
    import torch
    from torchestimator._engine.checkpoint import CheckpointManager, latest_checkpoint, load_checkpoint

    directory = sys.argv[1]
    mgr = CheckpointManager(directory, max_to_keep=3)
    prefix = latest_checkpoint(directory)
    step = load_checkpoint(prefix)[1]["global_step"] + 1 if prefix else 0
    print("ready", flush=True)
    while True:
        n = 5_000_000 if step % 3 != 2 else 1000  # mostly ~20 MB checkpoints
        tensors = {"w": torch.full((n,), float(step)), "b": torch.arange(3) + step}
        mgr.save(step, tensors, extra={"step": step, "n": n})
        print("saved", step, flush=True)
        if step % 4 == 3:  # re-save the same step now and then
            mgr.save(step, tensors, extra={"step": step, "n": n})
        step += 1
    """
)


def _check_after_kill(directory):
    complete = [s for s, p in ckpt._scan(directory) if checkpoint_exists(p)]
    prefix = latest_checkpoint(directory)
    if not complete:
        assert prefix is None
        return None
    assert prefix is not None, f"complete checkpoints {complete} exist but latest_checkpoint found none"
    tensors, meta = load_checkpoint(prefix)
    step = meta["global_step"]
    assert meta["extra"] == {"step": step, "n": tensors["w"].numel()}
    assert torch.all(tensors["w"] == float(step))
    assert torch.equal(tensors["b"], torch.arange(3) + step)
    assert int(tensors["global_step"]) == step
    # The index may lag the newest complete checkpoint by one save, never more.
    assert step >= max(complete) - 1
    return step


def _kill_trials(tmp_path, trials, seed):
    """Each trial starts a writer, waits for 0-2 completed saves, sleeps a random moment
    and kills it with SIGKILL; then the folder must hold a complete latest checkpoint."""
    rng = random.Random(seed)
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    directory = str(tmp_path / "model_dir")
    reported = -1
    for _ in range(trials):
        proc = subprocess.Popen(
            [sys.executable, str(script), directory],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            line = proc.stdout.readline()
            assert line.strip() == "ready", proc.stderr.read()
            for _ in range(rng.choice([0, 1, 2])):
                line = proc.stdout.readline()
                assert line.startswith("saved"), proc.stderr.read()
                reported = max(reported, int(line.split()[1]))
            time.sleep(rng.uniform(0.0, 0.3))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        step = _check_after_kill(directory)
        if reported >= 0:
            # A save that returned is never lost (one step back only if the kill hit a
            # re-save of that same step between its two renames).
            assert step is not None and step >= reported - 1


def test_kill_9_while_saving_leaves_a_complete_latest_checkpoint(tmp_path):
    _kill_trials(tmp_path, trials=5, seed=1234)


@pytest.mark.slow
def test_kill_9_many_trials(tmp_path):
    _kill_trials(tmp_path, trials=30, seed=99)
