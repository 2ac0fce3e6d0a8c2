"""Property-based fuzzing of the readers (hypothesis): the CSV reader against Python's `csv`
module on generated files, and the checkpoint, weights-file and `.keras` readers on mutated
bytes. A reader gives the right result or a clear exception naming the file — never a crash,
a hang or another exception type.

The default run is bounded (TORCHESTIMATOR_FUZZ_EXAMPLES, 25 per property); set it higher for
a deeper run, e.g. TORCHESTIMATOR_FUZZ_EXAMPLES=2000 python -m pytest tests/reliability -k fuzz.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import tempfile
import time
import zipfile

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt

EXAMPLES = int(os.environ.get("TORCHESTIMATOR_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
PER_CASE_SECONDS = 10.0
CLEAR_ERRORS = (ValueError, OSError, KeyError)


# ---------------------------------------------------------------- CSV against Python's csv module
_FIELD = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
            max_size=12),
    st.sampled_from(["", '"', '""', ",", "a,b", "line\nbreak", " padded ", "ünï©ødé", "x" * 300]),
)


@st.composite
def _csv_files(draw):
    n_cols = draw(st.integers(1, 4))
    rows = draw(st.lists(st.lists(_FIELD, min_size=n_cols, max_size=n_cols), min_size=1, max_size=8))
    header = [f"c{i}" for i in range(n_cols)]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.booleans())
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=newline, quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return ("\ufeff" if bom else "") + buffer.getvalue(), header


def _python_csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))[1:]


def _our_rows(path: str, header: list[str]) -> list[list[str]]:
    ds = tf.data.experimental.make_csv_dataset(
        path, batch_size=1000, column_defaults=[""] * len(header), shuffle=False, num_epochs=1)
    out: list[list[str]] = []
    for batch in ds:
        columns = [np.asarray(batch[name]) for name in header]
        out.extend([str(col[i]) for col in columns] for i in range(len(columns[0])))
    return out


@FUZZ
@given(_csv_files())
def test_csv_reader_agrees_with_python_csv(tmp_path_factory, case):
    text, header = case
    expected = [row for row in _python_csv_rows(text) if row != []]
    path = os.path.join(tmp_path_factory.mktemp("csv"), "f.csv")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    start = time.monotonic()
    try:
        ours = _our_rows(path, header)
    except ValueError as error:  # the same file rejected: it must name the file
        assert "f.csv" in str(error)
        return
    assert time.monotonic() - start < PER_CASE_SECONDS
    assert ours == expected


@FUZZ
@given(st.binary(min_size=1, max_size=40))
def test_csv_reader_on_non_utf8_bytes(tmp_path_factory, junk):
    path = os.path.join(tmp_path_factory.mktemp("csvb"), "bytes.csv")
    with open(path, "wb") as f:
        f.write(b"a,b\n1,2\n" + junk + b"\n")
    try:
        _our_rows(path, ["a", "b"])
    except ValueError as error:
        assert "bytes.csv" in str(error)


# ---------------------------------------------------------------- mutated bytes of our files
_ORIGINALS: dict[str, object] = {}


def _original(kind: str):
    """Writes one real file of `kind` once per session; returns (dir, files, check)."""
    if kind in _ORIGINALS:
        return _ORIGINALS[kind]
    base = tempfile.mkdtemp(prefix=f"fuzz-{kind}-")
    x = np.random.default_rng(5).normal(size=(8, 2)).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(2,))])
    model.compile("adam", "mse")
    model.fit(x, x, epochs=1, verbose=0)
    expected = model.predict(x, verbose=0)
    if kind == "checkpoint":
        est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=(2,))],
                                           model_dir=base)
        est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(4), steps=2)
        prefix = ckpt.latest_checkpoint(base)
        every = {os.path.basename(p): ckpt.load_checkpoint(p)[0]
                 for p in _all_prefixes(base)}
        result = (base, [prefix + ".safetensors", prefix + ".json", os.path.join(base, "checkpoint")],
                  every)
    elif kind == "keras":
        path = os.path.join(base, "m.keras")
        model.save(path)
        result = (base, [path], (x, expected))
    else:
        path = os.path.join(base, "w.weights.h5")
        model.save_weights(path)
        result = (base, [path], (x, expected))
    _ORIGINALS[kind] = result
    return result


def _all_prefixes(directory: str) -> list[str]:
    return sorted({os.path.join(directory, name[: -len(".json")]) for name in os.listdir(directory)
                   if name.startswith("model.ckpt-") and name.endswith(".json")})


_MUTATION = st.tuples(
    st.sampled_from(["flip", "truncate", "zero-run"]),
    st.floats(0.0, 0.999),  # where, as a fraction of the file
    st.integers(1, 255),  # the xor mask, or the run length
)


def _mutated_copy(kind: str, file_index: int, mutation) -> tuple[str, str]:
    base, files, _ = _original(kind)
    target_dir = tempfile.mkdtemp(prefix=f"fuzzcase-{kind}-")
    for name in os.listdir(base):
        if os.path.isfile(os.path.join(base, name)):
            shutil.copy2(os.path.join(base, name), target_dir)
    path = os.path.join(target_dir, os.path.basename(files[file_index % len(files)]))
    data = bytearray(open(path, "rb").read())
    how, where, amount = mutation
    at = int(where * len(data))
    if how == "flip":
        data[at] ^= amount
    elif how == "truncate":
        data = data[:at]
    else:
        data[at:at + amount] = bytes(len(data[at:at + amount]))
    with open(path, "wb") as f:
        f.write(bytes(data))
    return target_dir, path


def _clear(error: BaseException, target_dir: str) -> bool:
    return isinstance(error, CLEAR_ERRORS) and target_dir in str(error)


@FUZZ
@given(st.integers(0, 2), _MUTATION)
def test_checkpoint_reader_on_mutated_bytes(file_index, mutation):
    _, _, every = _original("checkpoint")
    target_dir, path = _mutated_copy("checkpoint", file_index, mutation)
    start = time.monotonic()
    try:
        prefix = ckpt.latest_checkpoint(target_dir)
        if prefix is None:
            return  # the index and the files no longer name a checkpoint: nothing to load
        loaded, _ = ckpt.load_checkpoint(prefix)
    except Exception as error:  # noqa: BLE001 - the property is about which exceptions
        assert _clear(error, target_dir), f"{type(error).__name__}: {error}"
        return
    finally:
        assert time.monotonic() - start < PER_CASE_SECONDS
        shutil.rmtree(target_dir, ignore_errors=True)
    tensors = every[os.path.basename(prefix)]  # the latest, or an earlier good one (with a warning)
    assert loaded.keys() == tensors.keys()
    for name in tensors:
        assert torch.equal(loaded[name], tensors[name]), name


@FUZZ
@given(st.sampled_from(["keras", "weights"]), _MUTATION)
def test_keras_readers_on_mutated_bytes(kind, mutation):
    _, _, (x, expected) = _original(kind)
    target_dir, path = _mutated_copy(kind, 0, mutation)
    start = time.monotonic()
    try:
        if kind == "keras":
            model = tf.keras.models.load_model(path)
        else:
            model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(2,))])
            model(x)
            model.load_weights(path)
        got = model.predict(x, verbose=0)
    except Exception as error:  # noqa: BLE001
        assert _clear(error, target_dir), f"{type(error).__name__}: {error}"
        return
    finally:
        assert time.monotonic() - start < PER_CASE_SECONDS
        shutil.rmtree(target_dir, ignore_errors=True)
    np.testing.assert_array_equal(got, expected)


def test_a_keras_archive_with_a_bad_member_crc_is_refused(tmp_path):
    base, (path,), _ = _original("keras")
    bad = tmp_path / "bad.keras"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(bad, "w", zipfile.ZIP_STORED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            target.writestr(item, data)
    data = bytearray(bad.read_bytes())
    index = data.find(b'"class_name"')
    data[index + 1] ^= 0x20  # inside config.json's bytes: its CRC no longer matches
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="bad.keras"):
        tf.keras.models.load_model(str(bad))
