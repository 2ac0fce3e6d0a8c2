"""TensorFlow's V2 checkpoint format (the tensor bundle), read without TensorFlow.

A checkpoint `PREFIX` is `PREFIX.index`, an SSTable (`_sstable`) mapping each tensor name to
a `BundleEntryProto` (dtype, shape, shard, offset, size, masked CRC32C; the empty key holds
the `BundleHeaderProto`: number of shards, endianness), plus the data shards
`PREFIX.data-0000K-of-0000N` holding the raw little-endian bytes. A string tensor's bytes
are the varint64 length of each element, the CRC32C of those lengths, then the elements.
A partitioned variable is saved under its full name with `slices` and no data; each slice
is a tensor of its own under the key `EncodeTensorNameSlice(name, slice)`.

`TensorBundle(prefix)` reads the index once; `get_tensor(name)` reads one tensor (checking
its CRC32C; slices joined into the full tensor), `read_all()` every tensor in file order.
"""

from __future__ import annotations

import difflib
import os
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np

from torchestimator._tf_formats import _dtypes, _ordered_code, _protos
from torchestimator._tf_formats._crc32c import crc32c, crc32c_array, mask
from torchestimator._tf_formats._sstable import TableError, read_table

INDEX_SUFFIX = ".index"
__all__ = ["TFCheckpointError", "TensorBundle", "data_path", "is_tf_checkpoint"]


class TFCheckpointError(ValueError):
    """A TensorFlow checkpoint is missing a file, truncated, corrupt, or holds what cannot be read."""


def data_path(prefix: str, shard: int, num_shards: int) -> str:
    """The path of data shard `shard` of `num_shards`: `PREFIX.data-0000K-of-0000N`."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def is_tf_checkpoint(prefix: str) -> bool:
    """True when `prefix` names a TensorFlow (V2) checkpoint: `PREFIX.index` exists."""
    return os.path.isfile(os.fspath(prefix) + INDEX_SUFFIX)


class TensorBundle:
    """The index of the TF checkpoint `prefix`, and its tensors on demand.

    Raises:
      FileNotFoundError: `PREFIX.index` does not exist.
      TFCheckpointError: the index is corrupt (the message names the file) or a data shard
        it needs is missing.
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = os.fspath(prefix)
        self.index_path = self.prefix + INDEX_SUFFIX
        try:
            with open(self.index_path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise FileNotFoundError(
                f"No TensorFlow checkpoint at {self.prefix!r}: {self.index_path} does not exist."
            ) from None
        try:
            table = read_table(data, self.index_path)
        except TableError as e:
            raise TFCheckpointError(f"TensorFlow checkpoint index {e}") from None
        self.num_shards = 1
        self.entries: dict[str, Any] = {}
        self._slice_entries: dict[bytes, Any] = {}
        for key, value in table:
            try:
                if key == b"":
                    header = _protos.BundleHeaderProto.FromString(value)
                    self.num_shards = header.num_shards
                    if header.endianness != 0:
                        raise TFCheckpointError(
                            f"TensorFlow checkpoint {self.index_path} was written big-endian; only "
                            "little-endian checkpoints (every x86 and ARM machine) are read."
                        )
                    continue
                entry = _protos.BundleEntryProto.FromString(value)
            except TFCheckpointError:
                raise
            except Exception as e:  # protobuf's DecodeError
                raise TFCheckpointError(
                    f"TensorFlow checkpoint index {self.index_path}: the entry of {key!r} cannot be "
                    f"decoded ({e}): the file is corrupt."
                ) from None
            if key[:1] == b"\x00":
                self._slice_entries[key] = entry
            else:
                self.entries[key.decode("utf-8", "replace")] = entry
        if self.num_shards < 1:
            raise TFCheckpointError(
                f"TensorFlow checkpoint index {self.index_path} has no header (num_shards "
                f"{self.num_shards}): it is corrupt or not a checkpoint index."
            )
        self._files: dict[int, Any] = {}

    # -- metadata ------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Every tensor name, sorted."""
        return sorted(self.entries)

    def shape(self, name: str) -> list[int]:
        """The shape of tensor `name` as a list of ints."""
        return [int(d.size) for d in self._entry(name).shape.dim]

    def dtype_name(self, name: str) -> str:
        """TF's name of the dtype of tensor `name` (`float32`, `bfloat16`, `string`, ...)."""
        return _dtypes.dtype_name(self._entry(name).dtype)

    def _entry(self, name: str) -> Any:
        entry = self.entries.get(name)
        if entry is None:
            close = difflib.get_close_matches(name, list(self.entries), n=5, cutoff=0.4)
            hint = f" Similar names: {close}." if close else f" It holds {len(self.entries)} tensors."
            raise KeyError(
                f"Tensor {name!r} not found in checkpoint {self.prefix!r}.{hint} "
                "Use tf.train.list_variables() to see every name."
            )
        return entry

    # -- data ------------------------------------------------------------------------------

    def _shard(self, shard: int) -> Any:
        f = self._files.get(shard)
        if f is None:
            path = data_path(self.prefix, shard, self.num_shards)
            try:
                f = open(path, "rb")  # noqa: SIM115 - kept open until close()
            except FileNotFoundError:
                raise TFCheckpointError(
                    f"TensorFlow checkpoint {self.prefix!r} is incomplete: its data shard {path} is "
                    f"missing (the index names {self.num_shards} shard(s)). Copy every "
                    f"'{os.path.basename(self.prefix)}.data-*' file along with the .index file."
                ) from None
            self._files[shard] = f
        return f

    def close(self) -> None:
        """Closes the data shards opened so far."""
        for f in self._files.values():
            f.close()
        self._files.clear()

    def __enter__(self) -> TensorBundle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _truncated(self, name: str, entry: Any, got: int) -> TFCheckpointError:
        return TFCheckpointError(
            f"TensorFlow checkpoint {data_path(self.prefix, entry.shard_id, self.num_shards)} is "
            f"truncated: tensor {name!r} needs bytes {entry.offset}..{entry.offset + entry.size}, "
            f"the file ends at {entry.offset + got}."
        )

    def _read(self, name: str, entry: Any, bfloat16_bits: bool = False) -> np.ndarray:
        """The value stored for `entry` (one tensor or one slice), its CRC32C checked. Numeric
        values are read straight into their array (no intermediate copy)."""
        shape = tuple(int(d.size) for d in entry.shape.dim)
        f = self._shard(entry.shard_id)
        f.seek(entry.offset)
        if entry.dtype == _dtypes.STRING:
            data = f.read(entry.size)
            if len(data) != entry.size:
                raise self._truncated(name, entry, len(data))
            values, crc = _strings(name, data, shape, self.prefix)  # its CRC covers uint32 lengths
            if mask(crc) != entry.crc32c:
                raise _crc_error(self, name, entry)
            return values
        spec = _dtypes.DTYPES.get(entry.dtype)
        if spec is None or spec[1] is None:
            raise TFCheckpointError(
                f"Tensor {name!r} of TensorFlow checkpoint {self.prefix!r} has dtype "
                f"{_dtypes.dtype_name(entry.dtype)}, which holds no plain values (a resource or "
                "variant: a dataset iterator or lookup table state); it cannot be read."
            )
        count = int(np.prod(shape, dtype=np.int64))
        if count * spec[1].itemsize != entry.size:
            raise TFCheckpointError(
                f"Tensor {name!r} of TensorFlow checkpoint {self.prefix!r} has {entry.size} bytes, "
                f"its shape {list(shape)} and dtype {spec[0]} need {count * spec[1].itemsize}: the "
                "index is corrupt."
            )
        array = np.empty(count, dtype=spec[1])
        got = f.readinto(memoryview(array).cast("B")) if entry.size else 0
        if got != entry.size:
            raise self._truncated(name, entry, got or 0)
        if mask(crc32c_array(array)) != entry.crc32c:
            raise _crc_error(self, name, entry)
        array = array.reshape(shape)
        if entry.dtype == _dtypes.BFLOAT16 and not bfloat16_bits:
            return _dtypes.bfloat16_to_float32(array)
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))
        return array

    def get_tensor(self, name: str, bfloat16_bits: bool = False) -> np.ndarray:
        """The value of tensor `name` as a numpy array (bfloat16 as float32, strings as a numpy
        object array of bytes), its CRC32C checked. Partitioned variables come back whole.
        With `bfloat16_bits`, bfloat16 values come back as their 16 bits (uint16).

        Raises:
          KeyError: no such tensor (the message lists similar names).
          TFCheckpointError: its bytes fail their CRC32C or a shard is missing or truncated.
        """
        entry = self._entry(name)
        if len(entry.slices):
            return self._join(name, entry, bfloat16_bits)
        return self._read(name, entry, bfloat16_bits)

    def _join(self, name: str, entry: Any, bfloat16_bits: bool = False) -> np.ndarray:
        shape = [int(d.size) for d in entry.shape.dim]
        pieces = []
        for tensor_slice in entry.slices:
            extents = []
            for extent in tensor_slice.extent:
                length = extent.length if extent.HasField("length") else -1
                extents.append((int(extent.start), int(length)))
            key = _ordered_code.tensor_name_slice(name, extents)
            piece_entry = self._slice_entries.get(key)
            if piece_entry is None:
                raise TFCheckpointError(
                    f"TensorFlow checkpoint {self.index_path} is corrupt: partitioned tensor {name!r} "
                    f"lists the slice {extents} but the index holds no entry for it."
                )
            pieces.append((extents, self._read(name, piece_entry, bfloat16_bits)))
        dtype = pieces[0][1].dtype if pieces else np.float32
        out = np.empty(shape, dtype=dtype)
        for extents, value in pieces:
            index = tuple(
                slice(None) if length < 0 else slice(start, start + length) for start, length in extents
            )
            out[index] = value
        return out

    def read_all(self, bfloat16_bits: bool = False) -> Iterator[tuple[str, np.ndarray]]:
        """Yields `(name, value)` for every tensor (as `get_tensor`), shard by shard in file order,
        so a large checkpoint is read sequentially."""
        plain = sorted(
            ((e.shard_id, e.offset, n) for n, e in self.entries.items() if not len(e.slices)),
        )
        for _, _, name in plain:
            yield name, self.get_tensor(name, bfloat16_bits)
        for name, entry in self.entries.items():
            if len(entry.slices):
                yield name, self.get_tensor(name, bfloat16_bits)


def _crc_error(bundle: TensorBundle, name: str, entry: Any) -> TFCheckpointError:
    path = data_path(bundle.prefix, entry.shard_id, bundle.num_shards)
    return TFCheckpointError(
        f"TensorFlow checkpoint {path} is corrupt: tensor {name!r} (bytes {entry.offset}.."
        f"{entry.offset + entry.size}) fails its CRC32C. Restore the file from a good copy."
    )


def _strings(name: str, data: bytes, shape: tuple, prefix: str) -> tuple[np.ndarray, int]:
    """The elements of a string tensor and the CRC32C TF records for it (over each length as a
    little-endian uint32 (uint64 above 4 GiB), the masked length checksum, then the bytes)."""
    count = int(np.prod(shape, dtype=np.int64))
    lengths = []
    pos = 0
    try:
        for _ in range(count):
            value = shift = 0
            while True:
                byte = data[pos]
                pos += 1
                value |= (byte & 0x7F) << shift
                if byte < 0x80:
                    break
                shift += 7
            lengths.append(value)
        (length_crc,) = struct.unpack_from("<I", data, pos)
    except (IndexError, struct.error):
        raise TFCheckpointError(
            f"String tensor {name!r} of TensorFlow checkpoint {prefix!r} is corrupt: its lengths run "
            "past its bytes."
        ) from None
    crc = crc32c(b"".join(
        struct.pack("<I", n) if n <= 0xFFFFFFFF else struct.pack("<Q", n) for n in lengths
    ))
    if mask(crc) != length_crc:
        raise TFCheckpointError(
            f"String tensor {name!r} of TensorFlow checkpoint {prefix!r} is corrupt: the CRC32C of its "
            "element lengths does not match."
        )
    crc = crc32c(data[pos:pos + 4], crc)
    pos += 4
    start = pos
    out = np.empty(count, dtype=object)
    for i, length in enumerate(lengths):
        out[i] = data[pos:pos + length]
        pos += length
    crc = crc32c(data[start:pos], crc)
    if pos != len(data):
        raise TFCheckpointError(
            f"String tensor {name!r} of TensorFlow checkpoint {prefix!r} is corrupt: its elements take "
            f"{pos} bytes, its entry {len(data)}."
        )
    return out.reshape(shape), crc
