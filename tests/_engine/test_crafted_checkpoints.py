"""Crafted checkpoints in our own format (security issue 26). tests/reliability/test_corruption.py
covers damage (flipped bits, truncation), which the SHA-256s in the metadata catch; a crafted
file comes with checksums that match, so here every file is re-sealed after it is changed
(`size_bytes`, `sha256` and `metadata_sha256` recomputed) and the readers' own checks must hold:
the safetensors header (its length field, shapes, offsets, dtypes, `__metadata__`), the field
types of the JSON metadata, its nesting and size, and the size of the `checkpoint` index.

Each load ends in a CorruptCheckpointError (a ValueError) naming the file, with a traced peak
within the files' size plus a fixed overhead, and without writing outside the test directory."""

from __future__ import annotations

import json
import os
import struct
import tracemalloc
from collections.abc import Callable

import pytest
import torch

from _crafted_guard import crafted_guard
from torchestimator._engine import checkpoint as ckpt
from torchestimator._engine.state_io import sha256

OVERHEAD = 2 << 20
STEP = 5


@pytest.fixture
def prefix(tmp_path) -> str:
    path = str(tmp_path / f"model.ckpt-{STEP}")
    ckpt.write_checkpoint(path, {"w": torch.ones(3, 2), "global_step": torch.tensor(STEP)}, STEP)
    return path


@pytest.fixture(scope="module", autouse=True)
def _warm_load_path(tmp_path_factory):
    """Loads a good checkpoint once outside any guard (modules imported lazily on first use)."""
    path = str(tmp_path_factory.mktemp("warm") / "model.ckpt-1")
    ckpt.write_checkpoint(path, {"w": torch.ones(2)}, 1)
    for load in LOADERS.values():
        load(path)


def _seal(prefix: str, tensors: bytes | None = None, **fields) -> None:
    """Writes `tensors` (default: the file as it is) and metadata that vouches for it, with
    `fields` changed, its checksums recomputed as a crafter would."""
    path = prefix + ckpt.TENSORS_SUFFIX
    if tensors is None:
        with open(path, "rb") as f:
            tensors = f.read()
    with open(path, "wb") as f:
        f.write(tensors)
    with open(prefix + ckpt.METADATA_SUFFIX) as f:
        metadata = json.load(f)
    metadata.update(sha256=sha256(tensors), size_bytes=len(tensors))
    metadata.update(fields)
    metadata.pop(ckpt.METADATA_CHECKSUM)
    metadata[ckpt.METADATA_CHECKSUM] = ckpt.metadata_checksum(metadata)
    with open(prefix + ckpt.METADATA_SUFFIX, "w") as f:
        json.dump(metadata, f)


def _header(prefix: str) -> tuple[dict, bytes]:
    with open(prefix + ckpt.TENSORS_SUFFIX, "rb") as f:
        data = f.read()
    (size,) = struct.unpack_from("<Q", data)
    return json.loads(data[8:8 + size]), data[8 + size:]


def _build(header: dict, body: bytes) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + body


def _tensor_field(name: str, field: str, value) -> Callable[[dict, bytes], bytes]:
    def craft(header, body):
        header[name] = {**header[name], field: value}
        return _build(header, body)
    return craft


def _length_field(value: int) -> Callable[[dict, bytes], bytes]:
    def craft(header, body):
        return struct.pack("<Q", value) + _build(header, body)[8:]
    return craft


def _metadata_of_header(value) -> Callable[[dict, bytes], bytes]:
    def craft(header, body):
        header["__metadata__"] = value
        return _build(header, body)
    return craft


def _overlap(header, body):
    start = header["w"]["data_offsets"][0]
    header["global_step"] = {**header["global_step"], "data_offsets": [start, start + 8]}
    return _build(header, body)


SAFETENSORS_CASES = {
    "header-length-huge": _length_field(1 << 62),
    "header-length-2^64-1": _length_field((1 << 64) - 1),
    "header-length-past-the-file": _length_field(10_000),
    "shape-overflows": _tensor_field("w", "shape", [1 << 40, 1 << 40]),
    "shape-disagrees-with-offsets": _tensor_field("w", "shape", [3, 3]),
    "shape-not-a-list": _tensor_field("w", "shape", "3x2"),
    "shape-negative": _tensor_field("w", "shape", [-3, -2]),
    "offsets-past-the-file": _tensor_field("w", "data_offsets", [0, 1 << 40]),
    "offsets-negative": _tensor_field("w", "data_offsets", [-8, 16]),
    "offsets-reversed": _tensor_field("w", "data_offsets", [24, 0]),
    "offsets-overlap": _overlap,
    "dtype-unknown": _tensor_field("w", "dtype", "Q99"),
    "metadata-not-strings": _metadata_of_header({"global_step": 5}),
    "metadata-not-a-map": _metadata_of_header([1, 2]),
}


def _load(prefix):
    ckpt.load_checkpoint(prefix)


LOADERS = {
    "load_checkpoint": _load,
    "list_variables": ckpt.list_variables,
    "load_variable": lambda prefix: ckpt.load_variable(prefix, "w"),
}


def _expect_clear_error(tmp_path, prefix: str, load, pattern: str, file: str) -> str:
    folder = os.path.dirname(prefix)
    limit = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)) + OVERHEAD
    with crafted_guard(tmp_path):
        tracemalloc.start()
        try:
            with pytest.raises(ckpt.CorruptCheckpointError, match=pattern) as info:
                load(prefix)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert file in str(info.value), str(info.value)
    assert peak < limit, f"loading allocated {peak} bytes (limit {limit})"
    return str(info.value)


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("case", sorted(SAFETENSORS_CASES))
def test_crafted_safetensors_header_is_a_clear_error(tmp_path, prefix, case, loader):
    header, body = _header(prefix)
    _seal(prefix, SAFETENSORS_CASES[case](header, body))
    _expect_clear_error(tmp_path, prefix, LOADERS[loader], r"(not a valid safetensors|cannot be read)",
                        prefix + ckpt.TENSORS_SUFFIX)


METADATA_CASES = {
    "format-version-string": ({"format_version": "1"}, r"'format_version' must be an integer, it is '1'"),
    "global-step-list": ({"global_step": [STEP]}, r"'global_step' must be an integer .*, it is \[5\]"),
    "global-step-bool": ({"global_step": True}, r"'global_step' must be an integer .*, it is True"),
    "global-step-huge": ({"global_step": 10 ** 40}, r"'global_step' must be an integer of at most 64 bits"),
    "size-bytes-string": ({"size_bytes": "232"}, r"'size_bytes' must be an integer >= 0, it is '232'"),
    "sha256-number": ({"sha256": 5}, r"'sha256' must be 64 hex digits, it is 5"),
    "extra-list": ({"extra": [1]}, r"'extra' must be a JSON object, it is \[1\]"),
    "timestamp-string": ({"timestamp": "yesterday"}, r"'timestamp' must be a number or null"),
}


@pytest.mark.parametrize("loader", ["load_checkpoint", "checkpoint_metadata"])
@pytest.mark.parametrize("case", sorted(METADATA_CASES))
def test_crafted_metadata_field_types_are_a_clear_error(tmp_path, prefix, case, loader):
    fields, pattern = METADATA_CASES[case]
    _seal(prefix, **fields)
    _expect_clear_error(tmp_path, prefix, getattr(ckpt, loader), pattern, prefix + ckpt.METADATA_SUFFIX)
    with crafted_guard(tmp_path):  # the model_dir's newest checkpoint is skipped, not a crash
        assert ckpt.latest_checkpoint(os.path.dirname(prefix)) is None


def test_deeply_nested_metadata_is_a_clear_error(tmp_path, prefix):
    with open(prefix + ckpt.METADATA_SUFFIX, "w") as f:
        f.write("[" * 200_000 + "]" * 200_000)
    _expect_clear_error(tmp_path, prefix, ckpt.load_checkpoint, r"nests too deeply",
                        prefix + ckpt.METADATA_SUFFIX)
    with crafted_guard(tmp_path):
        assert ckpt.latest_checkpoint(os.path.dirname(prefix)) is None


def test_huge_metadata_is_refused_before_it_is_read(tmp_path, prefix, monkeypatch):
    monkeypatch.setattr(ckpt._format, "MAX_JSON_BYTES", 1 << 20)
    _seal(prefix, extra={"padding": "x" * (4 << 20)})
    with crafted_guard(tmp_path):
        tracemalloc.start()
        try:
            with pytest.raises(ckpt.CorruptCheckpointError, match=r"is larger than 1048576 bytes"):
                ckpt.load_checkpoint(prefix)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < (1 << 20) + OVERHEAD, f"read {peak} bytes of a metadata file over the limit"


def test_huge_checkpoint_index_is_ignored_before_it_is_read(tmp_path, prefix, monkeypatch, caplog):
    monkeypatch.setattr(ckpt._format, "MAX_JSON_BYTES", 1 << 20)
    model_dir = os.path.dirname(prefix)
    with open(os.path.join(model_dir, ckpt.INDEX_FILENAME), "w") as f:
        f.write(f'model_checkpoint_path: "{os.path.basename(prefix)}"\n')
        f.write('all_model_checkpoint_paths: "x"\n' * 200_000)
    with crafted_guard(tmp_path):
        tracemalloc.start()
        try:
            found = ckpt.latest_checkpoint(model_dir)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert found == prefix  # found by scanning the folder
    assert "is larger than 1048576 bytes" in caplog.text
    assert peak < (1 << 20) + OVERHEAD, f"read {peak} bytes of an index over the limit"
