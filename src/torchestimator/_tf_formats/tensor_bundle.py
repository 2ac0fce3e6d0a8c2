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
import math
import os
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np

from torchestimator._tf_formats import _dtypes, _ordered_code, _protos
from torchestimator._tf_formats._crc32c import crc32c, crc32c_array, mask
from torchestimator._tf_formats._sstable import TableError, read_table

INDEX_SUFFIX = ".index"
#: The most dimensions a tensor of a TF checkpoint may have here: numpy's limit (64 from numpy 2).
MAX_RANK = 64 if int(np.__version__.split(".")[0]) >= 2 else 32
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
        for name, entry in self.entries.items():
            _check_entry(self.index_path, name, entry, self.num_shards)
        for key, entry in self._slice_entries.items():
            _check_entry(self.index_path, f"slice {key!r}", entry, self.num_shards)
        self._files: dict[int, Any] = {}
        self._sizes: dict[int, int] = {}

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
            self._sizes[shard] = os.fstat(f.fileno()).st_size
        return f

    def _check_in_shard(self, name: str, entry: Any) -> None:
        """TFCheckpointError unless bytes `offset..offset+size` of `entry` lie inside its data
        shard, checked before anything is allocated for the tensor."""
        self._shard(entry.shard_id)
        end = entry.offset + entry.size
        if end > self._sizes[entry.shard_id]:
            raise self._truncated(name, entry, 0)

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
        ends = self._sizes.get(entry.shard_id, entry.offset + got)
        return TFCheckpointError(
            f"TensorFlow checkpoint {data_path(self.prefix, entry.shard_id, self.num_shards)} is "
            f"truncated or its index is corrupt: tensor {name!r} needs bytes {entry.offset}.."
            f"{entry.offset + entry.size}, the file ends at {ends}."
        )

    def _read(self, name: str, entry: Any, bfloat16_bits: bool = False) -> np.ndarray:
        """The value stored for `entry` (one tensor or one slice), its CRC32C checked. Numeric
        values are read straight into their array (no intermediate copy)."""
        shape = tuple(int(d.size) for d in entry.shape.dim)
        self._check_in_shard(name, entry)
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
        count = math.prod(shape)
        if count * spec[1].itemsize != entry.size:
            raise TFCheckpointError(
                f"Tensor {name!r} of TensorFlow checkpoint index {self.index_path} has {entry.size} "
                f"bytes, its shape {list(shape)} and dtype {spec[0]} need "
                f"{count * spec[1].itemsize}: the index is corrupt."
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
        """A partitioned tensor, its slices checked against its shape (inside it, covering it,
        each stored with the slice's shape and the tensor's dtype) before any is read."""
        shape = [int(d.size) for d in entry.shape.dim]
        planned = []
        for tensor_slice in entry.slices:
            extents = _extents(self.index_path, name, tensor_slice, shape)
            key = _ordered_code.tensor_name_slice(name, extents)
            piece_entry = self._slice_entries.get(key)
            if piece_entry is None:
                raise TFCheckpointError(
                    f"TensorFlow checkpoint {self.index_path} is corrupt: partitioned tensor {name!r} "
                    f"lists the slice {extents} but the index holds no entry for it."
                )
            _check_piece(self.index_path, name, entry, extents, piece_entry, shape)
            planned.append((extents, piece_entry))
        covered = sum(_volume(extents, shape) for extents, _ in planned)
        if covered != math.prod(shape):
            raise TFCheckpointError(
                f"TensorFlow checkpoint index {self.index_path} is corrupt: the slices of partitioned "
                f"tensor {name!r} hold {covered} elements, its shape {shape} has {math.prod(shape)}."
            )
        pieces = [(extents, self._read(name, piece, bfloat16_bits)) for extents, piece in planned]
        dtype = pieces[0][1].dtype if pieces else np.float32
        out = np.zeros(shape, dtype=dtype)  # zeros: no stale memory shows through a gap
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
    count = math.prod(shape)
    if count > len(data):  # each element takes at least one byte (its length)
        raise TFCheckpointError(
            f"String tensor {name!r} of TensorFlow checkpoint {prefix!r} is corrupt: its shape "
            f"{list(shape)} has {count} elements, more than its {len(data)} bytes can hold."
        )
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
                if shift > 63:
                    raise TFCheckpointError(
                        f"String tensor {name!r} of TensorFlow checkpoint {prefix!r} is corrupt: the "
                        f"length of element {len(lengths)} is a varint longer than 10 bytes."
                    )
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


def _index_error(index_path: str, name: str, what: str) -> TFCheckpointError:
    return TFCheckpointError(
        f"TensorFlow checkpoint index {index_path} is corrupt: the entry of tensor {name!r} {what}. "
        "Restore the checkpoint from a good copy; a file that was crafted must not be loaded."
    )


def _check_entry(index_path: str, name: str, entry: Any, num_shards: int) -> None:
    """TFCheckpointError unless `entry`'s shard id, offset, size and shape are possible: shard
    in `0..num_shards-1`, offset and size not negative, at most `MAX_RANK` dims none negative."""
    if not 0 <= entry.shard_id < num_shards:
        raise _index_error(index_path, name, f"names data shard {entry.shard_id}, but the header "
                           f"says there are {num_shards} (ids 0..{num_shards - 1})")
    if entry.offset < 0:
        raise _index_error(index_path, name, f"has offset {entry.offset}; it must be >= 0")
    if entry.size < 0:
        raise _index_error(index_path, name, f"has size {entry.size}; it must be >= 0")
    dims = [int(d.size) for d in entry.shape.dim]
    if len(dims) > MAX_RANK:
        raise _index_error(index_path, name, f"has {len(dims)} dimensions; at most {MAX_RANK} are read")
    if any(d < 0 for d in dims):
        raise _index_error(index_path, name, f"has shape {dims}; every dimension must be >= 0")


def _extents(index_path: str, name: str, tensor_slice: Any, shape: list[int]) -> list[tuple[int, int]]:
    """`(start, length)` per dimension of one slice of partitioned tensor `name` (length -1: the
    whole dimension); TFCheckpointError unless it has one extent per dimension, inside `shape`."""
    if len(tensor_slice.extent) != len(shape):
        raise _index_error(index_path, name, f"has a slice of {len(tensor_slice.extent)} dimensions; "
                           f"its shape {shape} has {len(shape)}")
    extents = []
    for extent, dim in zip(tensor_slice.extent, shape):
        start = int(extent.start)
        length = int(extent.length) if extent.HasField("length") else -1
        if start < 0 or length < -1 or (length == -1 and start != 0) or start + max(length, 0) > dim:
            raise _index_error(index_path, name, f"has the slice extent start={start} length={length}, "
                               f"outside its dimension of size {dim}")
        extents.append((start, length))
    return extents


def _volume(extents: list[tuple[int, int]], shape: list[int]) -> int:
    """The number of elements of a slice (length -1 meaning the whole dimension)."""
    return math.prod(dim if length < 0 else length for (_, length), dim in zip(extents, shape))


def _check_piece(index_path: str, name: str, entry: Any, extents: list[tuple[int, int]],
                 piece: Any, shape: list[int]) -> None:
    """TFCheckpointError unless the entry of a slice has the slice's shape and the tensor's dtype."""
    want = [dim if length < 0 else length for (_, length), dim in zip(extents, shape)]
    got = [int(d.size) for d in piece.shape.dim]
    if got != want:
        raise _index_error(index_path, name, f"has the slice {extents} stored with shape {got}; the "
                           f"slice needs {want}")
    if piece.dtype != entry.dtype:
        raise _index_error(index_path, name, f"has dtype {_dtypes.dtype_name(entry.dtype)} but its "
                           f"slice {extents} is stored as {_dtypes.dtype_name(piece.dtype)}")
