"""Faults injected, nothing lost (reliability, issue 12): damaged files are detected, never
loaded as if they were right.

Every file the package reads back is damaged in every class of way: truncated at offsets
across the file; a byte flipped (all bits, and one bit, which keeps ASCII text ASCII) in the
header, the body and the index; plus the damage particular to a format (a checkpoint index
naming a missing file, a `.json` sidecar that disagrees with its tensors). Files:

* Estimator checkpoints: `model.ckpt-N.safetensors` (header: the length prefix and JSON header;
  index: the `data_offsets` in that header; body: the tensor bytes), its `.json` sidecar, and
  the `checkpoint` index file;
* `.keras` archives (header: the zip local headers; body: the members; index: the central
  directory and its end record);
* `.weights.h5` weight files (safetensors inside);
* BackupAndRestore backups (metadata JSON, model and optimizer safetensors).

The reader must either report the damage (ValueError / OSError naming the damaged file), or
return exactly the original content (damage to bytes nothing reads, e.g. a zip timestamp). For
checkpoints the previous good one is used, with a warning naming the damaged file. A fixed
sample of offsets per class runs by default; every offset of every file runs under slow.
"""

from __future__ import annotations

import io
import json
import logging
import os
import random
import re
import shutil
import struct
import zipfile

import pytest
import torch
from _fault_worker import X, Y, estimator, input_fn, keras_model, weights_digest

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine.state_io import flatten_state

SAMPLES = 8  # offsets per (file, region, flip) in the default run; slow runs every offset
EXHAUSTIVE = [pytest.param(False, id="sampled"),
              pytest.param(True, id="every-offset", marks=pytest.mark.slow)]
FLIPS = {"all-bits": 0xFF, "one-bit": 0x01}
CLEAR = (ValueError, OSError)
WIDTH = 16
HIDDEN = (8,)  # small files: the slow run damages every byte


# ---------------------------------------------------------------------------------------------
# Pristine files, built once
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    root = tmp_path_factory.mktemp("pristine")
    model_dir = str(root / "model")
    estimator(model_dir, HIDDEN).train(input_fn, steps=3)  # model.ckpt-1, -2, -3
    model = keras_model(width=WIDTH)
    backup_dir = str(root / "backup")
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq=1, delete_checkpoint=False)])
    model.save(str(root / "m.keras"))
    model.save_weights(str(root / "m.weights.h5"))
    return {"root": root, "model_dir": model_dir, "backup_dir": backup_dir, "model": model}


def _copy(pristine, tmp_path, what: str) -> str:
    source = os.path.join(pristine["root"], what)
    target = os.path.join(tmp_path, what)
    if os.path.isdir(source):
        shutil.copytree(source, target)
    else:
        shutil.copy(source, target)
    return target


# ---------------------------------------------------------------------------------------------
# Regions and damage
# ---------------------------------------------------------------------------------------------


def safetensors_regions(data: bytes) -> dict[str, list[int]]:
    """header: the length prefix and JSON header but the offsets; index: the digits of every
    `data_offsets`; body: the tensor bytes."""
    n = int.from_bytes(data[:8], "little")
    header = data[8:8 + n].decode("utf-8")
    index = {8 + m.start() + i for m in re.finditer(r'"data_offsets":\[\d+,\d+\]', header)
             for i, c in enumerate(m.group()) if c.isdigit()}
    return {"header": [i for i in range(8 + n) if i not in index], "index": sorted(index),
            "body": list(range(8 + n, len(data)))}


def zip_regions(data: bytes) -> dict[str, list[int]]:
    """header: each member's local header; body: its data; index: the central directory and
    the end-of-central-directory record."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    header, body = [], []
    for info in archive.infolist():
        name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
        start = info.header_offset + 30 + name_len + extra_len
        header += range(info.header_offset, start)
        body += range(start, start + info.compress_size)
    # the fields of each directory entry that decide what the reader finds: flags, method, name
    # length, comment length, local header offset, and the name's first byte (always tested)
    fields, offset = [], archive.start_dir
    while data[offset:offset + 4] == b"PK\x01\x02":
        name_len, extra_len, comment_len = struct.unpack("<HHH", data[offset + 28:offset + 34])
        fields += [offset + i for i in (8, 10, 28, 32, 42, 46)]
        offset += 46 + name_len + extra_len + comment_len
    return {"header": header, "body": body, "index": list(range(archive.start_dir, len(data))),
            "directory-fields": fields}


def _offsets(region: list[int], exhaustive: bool, seed: str) -> list[int]:
    if exhaustive or len(region) <= SAMPLES:
        return list(region)
    return sorted(random.Random(seed).sample(region, SAMPLES))


def _truncations(size: int, exhaustive: bool, seed: str) -> list[int]:
    if exhaustive:
        return list(range(size))
    middle = random.Random(seed).sample(range(9, size - 1), SAMPLES - 4)
    return sorted({0, 1, 8, size - 1, *middle})


def _flipped(data: bytes, offset: int, mask: int) -> bytes:
    damaged = bytearray(data)
    damaged[offset] ^= mask
    return bytes(damaged)


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class _Capture:
    """Collects the WARNINGs of the checkpoint module."""

    def __enter__(self) -> list[str]:
        self.handler = _Warnings()
        logging.getLogger(ckpt.__name__).addHandler(self.handler)
        return self.handler.messages

    def __exit__(self, *exc) -> None:
        logging.getLogger(ckpt.__name__).removeHandler(self.handler)


def _check_all(cases, attempt) -> None:
    """Runs `attempt(data)` for every `(label, data)`; fails listing every case whose damage
    was neither reported nor harmless."""
    failures = []
    for label, data in cases:
        problem = attempt(data)
        if problem:
            failures.append(f"{label}: {problem}")
    assert not failures, f"{len(failures)} damaged files not detected:\n" + "\n".join(failures[:15])


def _damage_cases(data: bytes, regions: dict, exhaustive: bool, what: str, region_names):
    """(label, damaged bytes) for the flips of `region_names` and the truncations."""
    for region in region_names:
        for flip, mask in FLIPS.items():
            for offset in _offsets(regions[region], exhaustive, f"{what}-{region}-{flip}"):
                yield f"{region} {flip} flip at {offset}", _flipped(data, offset, mask)


def _truncation_cases(data: bytes, exhaustive: bool, what: str):
    for size in _truncations(len(data), exhaustive, what):
        yield f"truncated to {size} bytes", data[:size]


# ---------------------------------------------------------------------------------------------
# Estimator checkpoints
# ---------------------------------------------------------------------------------------------


def _checkpoint_attempt(model_dir: str, damaged_path: str, named: str | None = None):
    """The newest checkpoint (3) is damaged: loading it must fail naming the file (`named`:
    either of its files, when they disagree), and latest_checkpoint must fall back to
    model.ckpt-2 with a warning naming it."""
    prefix = os.path.join(model_dir, "model.ckpt-3")
    named = named or damaged_path
    original = {}
    with open(damaged_path, "rb") as f:
        original[damaged_path] = f.read()

    def attempt(data: bytes) -> str | None:
        with open(damaged_path, "wb") as f:
            f.write(data)
        try:
            try:
                ckpt.load_checkpoint(prefix)
            except CLEAR as error:
                if named not in str(error):
                    return f"the error does not name {named}: {error}"
            else:
                return "load_checkpoint read it without an error"
            with _Capture() as warnings:
                latest = ckpt.latest_checkpoint(model_dir)
            if latest != os.path.join(model_dir, "model.ckpt-2"):
                return f"latest_checkpoint returned {latest}, not the previous good one"
            if not any(damaged_path in w or prefix in w for w in warnings):
                return f"no warning names the damaged checkpoint: {warnings}"
            return None
        finally:
            with open(damaged_path, "wb") as f:
                f.write(original[damaged_path])

    return attempt


@pytest.mark.parametrize("exhaustive", EXHAUSTIVE)
def test_checkpoint_tensor_file_damage_is_detected(pristine, tmp_path, exhaustive):
    model_dir = _copy(pristine, tmp_path, "model")
    path = os.path.join(model_dir, "model.ckpt-3.safetensors")
    with open(path, "rb") as f:
        data = f.read()
    regions = safetensors_regions(data)
    cases = [*_damage_cases(data, regions, exhaustive, "ckpt", ("header", "index", "body")),
             *_truncation_cases(data, exhaustive, "ckpt")]
    _check_all(cases, _checkpoint_attempt(model_dir, path))


def _json_value_offsets(text: str) -> dict[str, list[int]]:
    """Offsets of the digits of values the sidecar holds: global_step, input_position,
    size_bytes, timestamp, an RNG state number."""
    out = {}
    for key in ("global_step", "input_position", "size_bytes", "timestamp"):
        m = re.search(rf'"{key}": (\d+)', text)
        out[key] = [m.start(1) + i for i in range(len(m.group(1)))]
    m = re.search(r'"python": \[\s*\d+,\s*\[\s*(\d+)', text)
    if m:
        out["rng"] = [m.start(1) + i for i in range(len(m.group(1)))]
    return out


@pytest.mark.parametrize("exhaustive", EXHAUSTIVE)
def test_checkpoint_json_sidecar_damage_is_detected(pristine, tmp_path, exhaustive):
    """Truncation and all-bits flips (the bytes stop being UTF-8 JSON)."""
    model_dir = _copy(pristine, tmp_path, "model")
    path = os.path.join(model_dir, "model.ckpt-3.json")
    with open(path, "rb") as f:
        data = f.read()
    everywhere = {"json": list(range(len(data)))}
    cases = [(label, d) for label, d in _damage_cases(data, everywhere, exhaustive, "json", ["json"])
             if "all-bits" in label]
    cases += list(_truncation_cases(data, exhaustive, "json"))
    _check_all(cases, _checkpoint_attempt(model_dir, path))


def test_checkpoint_json_sidecar_value_flips_are_detected(pristine, tmp_path):
    model_dir = _copy(pristine, tmp_path, "model")
    path = os.path.join(model_dir, "model.ckpt-3.json")
    with open(path, "rb") as f:
        data = f.read()
    cases = [(f"{key} one-bit flip at {offset}", _flipped(data, offset, 0x01))
             for key, offsets in _json_value_offsets(data.decode()).items() for offset in offsets]
    _check_all(cases, _checkpoint_attempt(model_dir, path, named=path[: -len(".json")]))


def _rewrite_json(path: str, change) -> None:
    with open(path, encoding="utf-8") as f:
        metadata = json.load(f)
    change(metadata)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(metadata, f, indent=1, sort_keys=True)


@pytest.mark.parametrize("disagreement", [
    "json-of-another-checkpoint",
    "tensors-of-another-checkpoint",
    "size-bytes",
    "global-step",
    "input-position",
])
def test_checkpoint_sidecar_that_disagrees_with_its_tensors_is_detected(
        pristine, tmp_path, disagreement):
    model_dir = _copy(pristine, tmp_path, "model")
    prefix, older = os.path.join(model_dir, "model.ckpt-3"), os.path.join(model_dir, "model.ckpt-2")
    damaged = prefix + ".json"
    if disagreement == "json-of-another-checkpoint":
        shutil.copy(older + ".json", damaged)
    elif disagreement == "tensors-of-another-checkpoint":
        shutil.copy(older + ".safetensors", prefix + ".safetensors")
        damaged = prefix + ".safetensors"
    elif disagreement == "size-bytes":
        _rewrite_json(damaged, lambda m: m.update(size_bytes=m["size_bytes"] + 1))
    elif disagreement == "global-step":
        _rewrite_json(damaged, lambda m: m.update(global_step=7))
    else:
        _rewrite_json(damaged, lambda m: m["extra"].update(input_position=1000))
    with open(damaged, "rb") as f:
        data = f.read()
    _check_all([(disagreement, data)], _checkpoint_attempt(model_dir, damaged, named=prefix))


def _index_attempt(model_dir: str):
    """After damage to the index, latest_checkpoint returns a complete checkpoint: the newest
    (model.ckpt-3), or another one with a warning naming the index or what it names."""
    index = os.path.join(model_dir, "checkpoint")
    newest = os.path.join(model_dir, "model.ckpt-3")

    def attempt(data: bytes) -> str | None:
        with open(index, "wb") as f:
            f.write(data)
        with _Capture() as warnings:
            latest = ckpt.latest_checkpoint(model_dir)
        if latest is None or not ckpt.checkpoint_exists(latest):
            return f"latest_checkpoint returned {latest}, not a complete checkpoint"
        if latest != newest and not warnings:
            return f"latest_checkpoint silently returned {latest} instead of {newest}"
        return None

    return attempt


@pytest.mark.parametrize("flip", ["all-bits", "one-bit"])
def test_checkpoint_index_flips_never_lose_the_newest_silently(pristine, tmp_path, flip):
    model_dir = _copy(pristine, tmp_path, "model")
    with open(os.path.join(model_dir, "checkpoint"), "rb") as f:
        data = f.read()
    cases = [(f"{flip} flip at {offset}", _flipped(data, offset, FLIPS[flip]))
             for offset in range(len(data))]  # small: every offset, every run
    _check_all(cases, _index_attempt(model_dir))


def test_checkpoint_index_truncated_or_naming_a_missing_file(pristine, tmp_path):
    model_dir = _copy(pristine, tmp_path, "model")
    with open(os.path.join(model_dir, "checkpoint"), "rb") as f:
        data = f.read()
    cases = [(f"truncated to {n} bytes", data[:n]) for n in range(len(data))]
    cases.append(("names a missing checkpoint",
                  data.replace(b'model_checkpoint_path: "model.ckpt-3"',
                               b'model_checkpoint_path: "model.ckpt-9"')))
    _check_all(cases, _index_attempt(model_dir))
    # the missing file is named in the warning, and the newest complete checkpoint is used
    with open(os.path.join(model_dir, "checkpoint"), "wb") as f:
        f.write(cases[-1][1])
    with _Capture() as warnings:
        assert ckpt.latest_checkpoint(model_dir) == os.path.join(model_dir, "model.ckpt-3")
    assert any("model.ckpt-9" in w for w in warnings), warnings


def test_estimator_resumes_from_the_previous_good_checkpoint_with_a_warning(pristine, tmp_path):
    model_dir = _copy(pristine, tmp_path, "model")
    damaged = os.path.join(model_dir, "model.ckpt-3.safetensors")
    with open(damaged, "rb") as f:
        data = f.read()
    body = safetensors_regions(data)["body"]
    with open(damaged, "wb") as f:
        f.write(_flipped(data, body[len(body) // 2], 0x01))
    est = estimator(model_dir, HIDDEN)
    with _Capture() as warnings:
        assert len(list(est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(32)))) == 64
        est.train(input_fn, steps=1)  # from model.ckpt-2: the new step is 3
    assert any(damaged in w for w in warnings), warnings
    assert int(est.get_variable_value("global_step")) == 3
    assert ckpt.checkpoint_exists(os.path.join(model_dir, "model.ckpt-3"))


# ---------------------------------------------------------------------------------------------
# .keras archives and .weights.h5 files
# ---------------------------------------------------------------------------------------------


def _state(model) -> tuple:
    optimizer = getattr(model, "optimizer", None)
    opt = None
    if optimizer is not None and getattr(optimizer, "_built", False):
        tensors, skeleton = flatten_state(optimizer.state_dict())
        opt = (weights_digest(tensors[k] for k in sorted(tensors)), json.dumps(skeleton, sort_keys=True))
    return weights_digest(model.state_dict().values()), opt


def _load_attempt(path: str, load, expected):
    def attempt(data: bytes) -> str | None:
        with open(path, "wb") as f:
            f.write(data)
        try:
            loaded = load(path)
        except CLEAR as error:
            return None if path in str(error) else f"the error does not name {path}: {error!r}"
        except Exception as error:  # noqa: BLE001 - any other exception is a failure
            return f"an unclear {type(error).__name__}: {error}"
        return None if expected(loaded) else "it loaded, with different content"

    return attempt


@pytest.mark.parametrize("exhaustive", EXHAUSTIVE)
def test_keras_archive_damage_is_detected(pristine, tmp_path, exhaustive):
    path = _copy(pristine, tmp_path, "m.keras")
    with open(path, "rb") as f:
        data = f.read()
    reference = _state(tf.keras.models.load_model(path))
    config = pristine["model"].get_config()
    regions = zip_regions(data)
    cases = [*_damage_cases(data, regions, exhaustive, "keras", ("header", "body", "index")),
             *_truncation_cases(data, exhaustive, "keras")]
    if not exhaustive:  # (every offset is in the exhaustive run's index already)
        cases += [(f"directory field {flip} flip at {offset}", _flipped(data, offset, mask))
                  for offset in regions["directory-fields"] for flip, mask in FLIPS.items()]
    _check_all(cases, _load_attempt(
        path, tf.keras.models.load_model,
        lambda m: _state(m) == reference and m.get_config() == config))


@pytest.mark.parametrize("exhaustive", EXHAUSTIVE)
def test_weights_file_damage_is_detected(pristine, tmp_path, exhaustive):
    path = _copy(pristine, tmp_path, "m.weights.h5")
    with open(path, "rb") as f:
        data = f.read()
    reference = weights_digest(pristine["model"].state_dict().values())

    def load(p):
        model = keras_model(width=WIDTH, compiled=False)
        model.load_weights(p)
        return model

    cases = [*_damage_cases(data, safetensors_regions(data), exhaustive, "weights",
                            ("header", "index", "body")),
             *_truncation_cases(data, exhaustive, "weights")]
    _check_all(cases, _load_attempt(path, load,
                                    lambda m: weights_digest(m.state_dict().values()) == reference))


# ---------------------------------------------------------------------------------------------
# BackupAndRestore backups
# ---------------------------------------------------------------------------------------------


def _restored(backup_dir: str) -> tuple:
    model = keras_model(width=WIDTH)
    callback = tf.keras.callbacks.BackupAndRestore(backup_dir, delete_checkpoint=False)
    callback.set_model(model)
    callback.on_train_begin()
    return _state(model), model._initial_epoch


@pytest.mark.parametrize("exhaustive", EXHAUSTIVE)
@pytest.mark.parametrize("which", ["metadata", "model", "optimizer"])
def test_backup_damage_is_detected(pristine, tmp_path, which, exhaustive):
    backup_dir = _copy(pristine, tmp_path, "backup")
    reference = _restored(backup_dir)
    with open(os.path.join(backup_dir, "training_metadata.json"), encoding="utf-8") as f:
        metadata = json.load(f)
    name = {"metadata": "training_metadata.json", "model": metadata["model_file"],
            "optimizer": metadata["optimizer_file"]}[which]
    path = os.path.join(backup_dir, name)
    with open(path, "rb") as f:
        data = f.read()
    if which == "metadata":
        cases = list(_damage_cases(data, {"json": list(range(len(data)))}, exhaustive,
                                   "backup-json", ["json"]))
        text = data.decode()  # and, in every run, the values that decide where training resumes
        values = [m.start(1) + i for key in ("initial_epoch", "initial_step", "epoch", "generation")
                  for m in [re.search(rf'"{key}": (\d+)', text)] for i in range(len(m.group(1)))]
        cases += [(f"value one-bit flip at {offset}", _flipped(data, offset, 0x01)) for offset in values]
    else:
        cases = list(_damage_cases(data, safetensors_regions(data), exhaustive, f"backup-{which}",
                                   ("header", "index", "body")))
    cases += list(_truncation_cases(data, exhaustive, f"backup-{which}"))
    _check_all(cases, _load_attempt(path, lambda _: _restored(backup_dir),
                                    lambda restored: restored == reference))
    with open(path, "wb") as f:
        f.write(data)
    assert _restored(backup_dir) == reference


def test_damage_free_files_still_load(pristine, tmp_path):
    """The readers accept every pristine file (so the detections above are not false alarms)."""
    model_dir = _copy(pristine, tmp_path, "model")
    with _Capture() as warnings:
        assert ckpt.latest_checkpoint(model_dir) == os.path.join(model_dir, "model.ckpt-3")
    assert not warnings
    tensors, _ = ckpt.load_checkpoint(os.path.join(model_dir, "model.ckpt-3"))
    assert int(tensors["global_step"]) == 3
    model = tf.keras.models.load_model(_copy(pristine, tmp_path, "m.keras"))
    assert weights_digest(model.state_dict().values()) == weights_digest(
        pristine["model"].state_dict().values())
    assert torch.equal(torch.as_tensor(model.predict(X, verbose=0)),
                       torch.as_tensor(pristine["model"].predict(X, verbose=0)))
    _restored(_copy(pristine, tmp_path, "backup"))
