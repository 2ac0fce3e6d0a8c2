"""Crafted TensorFlow checkpoints (security issue 26): every size, offset, shape, dtype, shard id
and count of a real TF checkpoint's `.index` (fixtures/formats/dtypes, written by TF 2.15) is set
huge, negative or inconsistent by hand, one case per field. Each load must end in a clear
TFCheckpointError (a ValueError) naming the file and the tensor, before anything sized from the
index is allocated (`tracemalloc` sees numpy's allocations: the peak stays within the files'
size plus the reader's fixed overhead), and without writing outside the test's directory.

The index is rewritten by the small SSTable writer below (one data block, a restart point at
every entry), the same layout TF's table builder produces, with correct CRC32Cs, so each case
reaches the check it is about."""

from __future__ import annotations

import math
import os
import shutil
import struct
import tracemalloc
from collections.abc import Callable

import pytest

import torchestimator as tf
from _crafted_guard import crafted_guard
from torchestimator._engine import checkpoint as ckpt
from torchestimator._tf_formats import _protos, engine_hooks
from torchestimator._tf_formats._crc32c import crc32c, mask
from torchestimator._tf_formats._sstable import FOOTER_SIZE, MAGIC, read_table
from torchestimator._tf_formats.tensor_bundle import MAX_RANK, TFCheckpointError

DTYPES = os.path.join(os.path.dirname(__file__), "fixtures", "formats", "dtypes")
HUGE = 1 << 62
#: What the reader may allocate beyond the checkpoint's own bytes (protobuf, dicts, messages).
OVERHEAD = 2 << 20


# -- a minimal SSTable writer ------------------------------------------------------------------

def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _block_bytes(entries: list[tuple[bytes, bytes]], restarts: int | None = None,
                 entry_prefix: Callable[[int, bytes, bytes], bytes] | None = None) -> bytes:
    """An uncompressed block (no prefix sharing; a restart point at every entry), without its
    trailer. `restarts` overrides the restart count, `entry_prefix(i, key, value)` the
    `shared, unshared, value length` varints of entry i."""
    body = bytearray()
    offsets = []
    for i, (key, value) in enumerate(entries):
        offsets.append(len(body))
        prefix = entry_prefix(i, key, value) if entry_prefix else None
        body += prefix if prefix is not None else _varint(0) + _varint(len(key)) + _varint(len(value))
        body += key + value
    offsets = offsets or [0]
    body += b"".join(struct.pack("<I", o) for o in offsets)
    body += struct.pack("<I", len(offsets) if restarts is None else restarts)
    return bytes(body)


def _with_trailer(block: bytes) -> bytes:
    return block + b"\x00" + struct.pack("<I", mask(crc32c(block + b"\x00")))


def _handle(offset: int, size: int) -> bytes:
    return _varint(offset) + _varint(size)


def write_table(entries: list[tuple[bytes, bytes]], *, restarts: int | None = None,
                entry_prefix: Callable | None = None, data_handle: bytes | None = None,
                index_handle: bytes | None = None) -> bytes:
    """An SSTable holding `entries` in one data block, the optional overrides crafted in."""
    data_block = _block_bytes(entries, restarts, entry_prefix)
    out = _with_trailer(data_block)
    meta_offset = len(out)
    meta_block = _block_bytes([])
    out += _with_trailer(meta_block)
    index_offset = len(out)
    handle = data_handle if data_handle is not None else _handle(0, len(data_block))
    index_block = _block_bytes([(entries[-1][0] if entries else b"", handle)])
    out += _with_trailer(index_block)
    footer = _handle(meta_offset, len(meta_block))
    footer += index_handle if index_handle is not None else _handle(index_offset, len(index_block))
    footer = footer.ljust(FOOTER_SIZE - 8, b"\x00") + struct.pack("<Q", MAGIC)
    return out + footer


# -- the real checkpoint and its entries -------------------------------------------------------

def _copy(tmp_path) -> str:
    target = tmp_path / "dtypes"
    shutil.copytree(DTYPES, target)
    return str(target / "model.ckpt")


def _entries(prefix: str) -> list[tuple[bytes, object]]:
    """`(key, proto)` of every entry of the checkpoint's index (the header's key is b"")."""
    with open(prefix + ".index", "rb") as f:
        table = read_table(f.read(), prefix + ".index")
    return [(k, (_protos.BundleHeaderProto if k == b"" else _protos.BundleEntryProto).FromString(v))
            for k, v in table]


def _write(prefix: str, entries: list[tuple[bytes, object]], **table) -> None:
    raw = [(k, v.SerializeToString()) for k, v in entries]
    with open(prefix + ".index", "wb") as f:
        f.write(write_table(raw, **table))


def _entry(entries, key: bytes):
    return next(v for k, v in entries if k == key)


def _slice_key(entries, index: int) -> bytes:
    return [k for k, _ in entries if k[:1] == b"\x00"][index]


def _set_shape(entry, dims: list[int]) -> None:
    del entry.shape.dim[:]
    for d in dims:
        entry.shape.dim.add(size=d)


def _files_size(prefix: str) -> int:
    folder = os.path.dirname(prefix)
    return sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))


# -- the cases: one field each -----------------------------------------------------------------

def _header(field: str, value: int):
    def craft(entries):
        setattr(_entry(entries, b""), field, value)
    return craft


def _field(key: bytes, field: str, value: int):
    def craft(entries):
        setattr(_entry(entries, key), field, value)
    return craft


def _shape(key: bytes, dims: list[int], size: int | None = None):
    def craft(entries):
        entry = _entry(entries, key)
        _set_shape(entry, dims)
        if size is not None:
            entry.size = size
    return craft


def _slice_extent(index: int, dim: int, start: int, length: int):
    def craft(entries):
        extent = _entry(entries, b"partitioned/embedding").slices[index].extent[dim]
        extent.start, extent.length = start, length
    return craft


def _slice_dims(index: int):
    def craft(entries):
        del _entry(entries, b"partitioned/embedding").slices[index].extent[1]
    return craft


def _piece(index: int, field: str, value):
    def craft(entries):
        piece = _entry(entries, _slice_key(entries, index))
        if field == "shape":
            _set_shape(piece, value)
        else:
            setattr(piece, field, value)
    return craft


def _rename(old: bytes, new: bytes):
    def craft(entries):
        entries[:] = [(new if k == old else k, v) for k, v in entries]
    return craft


F32, STR, EMB = b"dtypes/float32", b"dtypes/string", b"partitioned/embedding"
#: id -> (craft the entries, table overrides, the tensor named, the message expected)
ENTRY_CASES = {
    "header-num-shards-zero": (_header("num_shards", 0), "", r"has no header \(num_shards 0\)"),
    "header-num-shards-negative": (_header("num_shards", -5), "", r"num_shards -5"),
    "header-big-endian": (_header("endianness", 1), "", "big-endian"),
    "shard-id-past-num-shards": (_field(F32, "shard_id", 7), "dtypes/float32",
                                 r"names data shard 7, but the header says there are 2"),
    "shard-id-negative": (_field(F32, "shard_id", -1), "dtypes/float32", r"names data shard -1"),
    "offset-negative": (_field(F32, "offset", -8), "dtypes/float32", r"has offset -8; it must be >= 0"),
    "offset-huge": (_field(F32, "offset", HUGE), "dtypes/float32",
                    rf"needs bytes {HUGE}\.\.{HUGE + 48}, the file ends at 94"),
    "size-negative": (_field(STR, "size", -1), "dtypes/string", r"has size -1; it must be >= 0"),
    "size-huge-numeric": (_shape(F32, [1 << 30, 1 << 30], 1 << 62), "dtypes/float32",
                          rf"needs bytes 28\.\.{28 + (1 << 62)}, the file ends at 94"),
    "size-huge-string": (_field(STR, "size", 1 << 40), "dtypes/string",
                         rf"needs bytes 79\.\.{79 + (1 << 40)}, the file ends at 196"),
    "size-disagrees-with-shape": (_field(F32, "size", 44), "dtypes/float32",
                                  r"has 44 bytes, its shape \[4, 3\] and dtype float32 need 48"),
    "dtype-disagrees-with-size": (_field(F32, "dtype", 2), "dtypes/float32",
                                  r"has 48 bytes, its shape \[4, 3\] and dtype float64 need 96"),
    "dtype-unknown": (_field(F32, "dtype", 99), "dtypes/float32", r"DataType\(99\)"),
    "shape-negative-dims": (_shape(F32, [-3, -4]), "dtypes/float32",
                            r"has shape \[-3, -4\]; every dimension must be >= 0"),
    "shape-product-overflows-int64": (_shape(F32, [1 << 32, 1 << 32], 0), "dtypes/float32",
                                      rf"has 0 bytes, its shape .* need {(1 << 64) * 4}"),
    "shape-rank-huge": (_shape(F32, [1] * (MAX_RANK + 1)), "dtypes/float32",
                        rf"has {MAX_RANK + 1} dimensions; at most {MAX_RANK} are read"),
    "string-count-huge": (_shape(STR, [1 << 40]), "dtypes/string",
                          rf"has {1 << 40} elements, more than its 25 bytes can hold"),
    "partitioned-shape-huge": (_shape(EMB, [1 << 31, 3]), "partitioned/embedding",
                               rf"hold 21 elements, its shape \[{1 << 31}, 3\] has {3 << 31}"),
    "partitioned-extent-outside": (_slice_extent(2, 0, 5, 5), "partitioned/embedding",
                                   r"start=5 length=5, outside its dimension of size 7"),
    "partitioned-extent-negative": (_slice_extent(0, 0, -2, 3), "partitioned/embedding",
                                    r"start=-2 length=3, outside"),
    "partitioned-slice-rank": (_slice_dims(1), "partitioned/embedding",
                               r"has a slice of 1 dimensions; its shape \[7, 3\] has 2"),
    "partitioned-piece-shape": (_piece(1, "shape", [4, 3]), "partitioned/embedding",
                                r"stored with shape \[4, 3\]; the slice needs \[2, 3\]"),
    "partitioned-piece-dtype": (_piece(1, "dtype", 2), "partitioned/embedding",
                                r"has dtype float32 but its slice .* is stored as float64"),
    "global-step-not-an-integer": (_rename(b"dtypes/string_scalar", b"global_step"), "",
                                   r"'global_step' tensor is string"),
}


def _load_for_estimator(prefix: str) -> None:
    ckpt.checkpoint_metadata(prefix)
    ckpt.load_checkpoint(prefix)


def _load_every_tensor(prefix: str) -> None:
    reader = tf.train.load_checkpoint(prefix)
    for name in reader.get_variable_to_shape_map():
        reader.get_tensor(name)
    engine_hooks.tf_metadata(prefix)


LOADERS = {"estimator-restore": _load_for_estimator, "load-checkpoint": _load_every_tensor}


@pytest.fixture(scope="module", autouse=True)
def _warm_load_path(tmp_path_factory):
    """Loads the real checkpoint once outside any guard, so the modules the load path imports
    lazily (torch's, the package's) are not counted as imported by a crafted file."""
    prefix = _copy(tmp_path_factory.mktemp("warm"))
    for load in LOADERS.values():
        load(prefix)


def _expect_clear_error(tmp_path, prefix: str, load, pattern: str, names: list[str]) -> None:
    """`load(prefix)` raises TFCheckpointError matching `pattern` and naming the checkpoint's
    file and `names`, with a traced peak within the files' size plus OVERHEAD."""
    limit = _files_size(prefix) + OVERHEAD
    with crafted_guard(tmp_path):
        tracemalloc.start()
        try:
            with pytest.raises(TFCheckpointError, match=pattern) as info:
                load(prefix)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    message = str(info.value)
    assert "model.ckpt" in message, message
    for name in names:
        assert name in message, message
    assert peak < limit, f"loading allocated {peak} bytes (limit {limit})"


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("case", sorted(ENTRY_CASES))
def test_crafted_index_entry_is_a_clear_error(tmp_path, case, loader):
    craft, name, pattern = ENTRY_CASES[case]
    prefix = _copy(tmp_path)
    entries = _entries(prefix)
    craft(entries)
    _write(prefix, entries)
    _expect_clear_error(tmp_path, prefix, LOADERS[loader], pattern, [name] if name else [])


def _long_string_length(prefix: str) -> None:
    """The first element length of dtypes/string becomes an 11-byte varint (its CRC is only
    checked after the lengths, so the length itself must be bounded)."""
    entry = _entry(_entries(prefix), STR)
    with open(f"{prefix}.data-00000-of-00002", "r+b") as f:
        f.seek(entry.offset)
        f.write(b"\xff" * 10 + b"\x01")


def test_crafted_string_length_varint_is_a_clear_error(tmp_path):
    prefix = _copy(tmp_path)
    _long_string_length(prefix)
    _expect_clear_error(tmp_path, prefix, _load_every_tensor,
                        r"length of element 0 is a varint longer than 10 bytes", ["dtypes/string"])


# -- the SSTable's own sizes ---------------------------------------------------------------------

def _entry_prefix(shared: int, unshared_extra: int = 0, value_extra: int = 0):
    def prefix(i, key, value):
        if i != 1:
            return None
        return _varint(shared) + _varint(len(key) + unshared_extra) + _varint(len(value) + value_extra)
    return prefix


TABLE_CASES = {
    "footer-index-offset-huge": ({"index_handle": _handle(HUGE, 40)},
                                 rf"the index block \({HUGE}\+40 bytes\) runs past the end of the file"),
    "footer-index-size-huge": ({"index_handle": _handle(0, HUGE)},
                               rf"the index block \(0\+{HUGE} bytes\) runs past the end"),
    "footer-varint-too-long": ({"index_handle": b"\xff" * 11}, r"its footer is corrupt"),
    "data-handle-offset-huge": ({"data_handle": _handle(HUGE, 10)},
                                rf"the data block \({HUGE}\+10 bytes\) runs past the end"),
    "data-handle-size-huge": ({"data_handle": _handle(0, HUGE)}, r"the data block .* runs past the end"),
    "data-handle-truncated-varint": ({"data_handle": b"\x80\x80"},
                                     r"handle of the data block ending at key .* is corrupt"),
    "restart-count-huge": ({"restarts": 0xFFFFFFFF},
                           rf"claims {0xFFFFFFFF} restart points \({4 * 0xFFFFFFFF} bytes\)"),
    "entry-key-length-huge": ({"entry_prefix": _entry_prefix(0, unshared_extra=HUGE)},
                              r"entry at byte \d+ of its block is malformed"),
    "entry-value-length-huge": ({"entry_prefix": _entry_prefix(0, value_extra=HUGE)},
                                r"claims \d+\+\d+ bytes of key and value"),
    "entry-shared-past-previous-key": ({"entry_prefix": _entry_prefix(1000)},
                                       r"shares 1000 bytes of the previous"),
    "entry-varint-too-long": ({"entry_prefix": lambda i, k, v: b"\xff" * 11 if i == 1 else None},
                              r"entry at byte \d+ of its block is corrupt \(a varint is longer"),
}


@pytest.mark.parametrize("case", sorted(TABLE_CASES))
def test_crafted_index_table_is_a_clear_error(tmp_path, case):
    overrides, pattern = TABLE_CASES[case]
    prefix = _copy(tmp_path)
    _write(prefix, _entries(prefix), **overrides)
    _expect_clear_error(tmp_path, prefix, _load_every_tensor, r"model\.ckpt\.index.*" + pattern, [])


def test_the_writer_above_rewrites_a_checkpoint_that_still_reads(tmp_path):
    """The crafted cases differ from the real checkpoint only in the field each one sets."""
    prefix = _copy(tmp_path)
    _write(prefix, _entries(prefix))
    tensors, _ = ckpt.load_checkpoint(prefix)
    assert tensors["partitioned/embedding"].shape == (7, 3)
    assert math.prod(tensors["dtypes/float32"].shape) == 12
