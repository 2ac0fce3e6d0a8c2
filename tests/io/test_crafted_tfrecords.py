"""Crafted TFRecord files (security issue 26): after a few good records written by the package's
own `TFRecordWriter`, a record's length field is set huge (up to 2^64-1, with a correct length
CRC, so the reader trusts it) or just past the end of the file, one case per value, in plain,
GZIP and ZLIB files, read by `tf.io.tf_record_iterator` and `tf.data.TFRecordDataset`.

Each read must end in `tf.errors.DataLossError` naming the file, the record's byte offset and
the length it claims, without allocating from that length: on a plain file the length is
checked against the bytes left before anything is read (the peak stays far below the padding
that follows the record), and a compressed stream, whose size is unknown, is read in pieces
no larger than what has arrived so far (the peak stays within twice the decompressed bytes)."""

from __future__ import annotations

import gzip
import os
import struct
import tracemalloc
import zlib

import pytest

import torchestimator as tf
from _crafted_guard import crafted_guard
from torchestimator.io._tfrecord import masked_crc32c

GOOD = [b"first record", b"second" * 10, b""]
GOOD_BYTES = sum(16 + len(r) for r in GOOD)  # where the crafted record starts
PADDING = 4 << 20  # bytes after the crafted header: more than a read buffer, fewer than claimed
BUFFER = 256 << 10  # the readers' default buffer
LENGTHS = {
    "2^64-1": (1 << 64) - 1,
    "2^63": 1 << 63,
    "2^62": 1 << 62,
    "1e12": 10 ** 12,
    "one-past-the-end": PADDING - 4 + 1,  # the data and its CRC need one byte more than is left
}


def _plain_bytes(tmp_path, length: int) -> bytes:
    """Good records from the package's writer, then a header claiming `length` bytes (its CRC
    correct) followed by PADDING bytes."""
    path = tmp_path / "good.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as writer:
        for record in GOOD:
            writer.write(record)
    header = struct.pack("<Q", length)
    crafted = header + struct.pack("<I", masked_crc32c(header)) + b"\x07" * PADDING
    return path.read_bytes() + crafted


def _write(tmp_path, length: int, compression: str) -> str:
    data = _plain_bytes(tmp_path, length)
    if compression == "GZIP":
        data = gzip.compress(data)
    elif compression == "ZLIB":
        data = zlib.compress(data)
    path = tmp_path / f"crafted-{compression or 'plain'}.tfrecord"
    path.write_bytes(data)
    return str(path)


def _iterate(path: str, compression: str) -> list:
    return list(tf.io.tf_record_iterator(path, compression))


def _dataset(path: str, compression: str) -> list:
    return list(tf.data.TFRecordDataset(path, compression_type=compression or None))


READERS = {"tf_record_iterator": _iterate, "TFRecordDataset": _dataset}


@pytest.fixture(scope="module", autouse=True)
def _warm_readers(tmp_path_factory):
    """Reads a good file of each compression once outside any guard, so the modules the readers
    import lazily are not counted as imported by a crafted file."""
    folder = tmp_path_factory.mktemp("warm")
    for compression in ("", "GZIP", "ZLIB"):
        path = str(folder / f"good-{compression}")
        with tf.io.TFRecordWriter(path, compression) as writer:
            writer.write(b"x")
        for read in READERS.values():
            assert read(path, compression) == [b"x"]


def _read_crafted(tmp_path, path: str, compression: str, read) -> tuple[str, int]:
    """The DataLossError message of reading `path`, and the traced peak of the read."""
    with crafted_guard(tmp_path):
        tracemalloc.start()
        try:
            with pytest.raises(tf.errors.DataLossError) as info:
                read(path, compression)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return str(info.value), peak


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("length", sorted(LENGTHS))
def test_plain_file_length_is_checked_against_the_file_before_reading(tmp_path, length, reader):
    path = _write(tmp_path, LENGTHS[length], "")
    message, peak = _read_crafted(tmp_path, path, "", READERS[reader])
    total = os.path.getsize(path)
    assert path in message and f"byte offset {GOOD_BYTES}" in message, message
    assert (f"its length field says {LENGTHS[length]} bytes but only {total - GOOD_BYTES - 16} "
            f"follow it before the end of the file ({total} bytes)") in message, message
    assert peak < 2 * BUFFER + (1 << 20), f"read allocated {peak} bytes before failing"


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("length", sorted(LENGTHS))
@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_stream_is_read_in_pieces_no_larger_than_it_holds(tmp_path, compression,
                                                                      length, reader):
    path = _write(tmp_path, LENGTHS[length], compression)
    message, peak = _read_crafted(tmp_path, path, compression, READERS[reader])
    assert path in message and f"byte offset {GOOD_BYTES} of the decompressed stream" in message
    assert (f"its length field says {LENGTHS[length]} bytes but only {PADDING - 4} follow it "
            "before the end of the file") in message, message
    assert peak < 2 * (GOOD_BYTES + 12 + PADDING) + (4 << 20), f"read allocated {peak} bytes"


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_huge_length_with_a_wrong_crc_is_reported_as_such(tmp_path, compression):
    path = _write(tmp_path, 1 << 63, compression)
    raw = _plain_bytes(tmp_path, 1 << 63)
    raw = raw[:GOOD_BYTES + 8] + b"\x00\x00\x00\x00" + raw[GOOD_BYTES + 12:]
    data = {"": raw, "GZIP": gzip.compress(raw), "ZLIB": zlib.compress(raw)}[compression]
    with open(path, "wb") as f:
        f.write(data)
    message, _ = _read_crafted(tmp_path, path, compression, _iterate)
    assert f"corrupted record at {GOOD_BYTES}: the length's CRC does not match" in message
    assert path in message


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_a_long_record_still_reads_whole(tmp_path, compression):
    """Reading in pieces keeps records longer than the buffer and than one piece intact."""
    path = str(tmp_path / "long.tfrecord")
    records = [os.urandom(3 * BUFFER + 17), b"tail"]
    with tf.io.TFRecordWriter(path, compression) as writer:
        for record in records:
            writer.write(record)
    assert _iterate(path, compression) == records
    assert _dataset(path, compression) == records


def test_a_zlib_bomb_is_decompressed_in_bounded_pieces(tmp_path):
    """A ZLIB file of ~128 KiB that expands to 128 MiB: reading its first bytes decompresses at
    most one piece of about a megabyte, not the whole expansion of the first compressed chunk."""
    from torchestimator.data.files import open_binary

    compressor = zlib.compressobj(9)
    zeros = b"\0" * (1 << 20)
    bomb = b"".join(compressor.compress(zeros) for _ in range(128)) + compressor.flush()
    path = tmp_path / "bomb.zlib"
    path.write_bytes(bomb)
    assert len(bomb) < 1 << 20  # one read of the reader's chunk holds the whole file
    with crafted_guard(tmp_path):
        tracemalloc.start()
        try:
            with open_binary(str(path), "ZLIB") as f:
                head = f.read(1024)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert head == b"\0" * 1024
    assert peak < 16 << 20, f"decompressing the first KiB of a zlib bomb peaked at {peak} bytes"
