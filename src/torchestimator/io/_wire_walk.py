"""A vectorized reader of any batch of simply-encoded Examples (the general fast path).

Walks the protobuf wire format of every Example of a batch at once, one
nesting level at a time (Example -> Features -> map entries -> Feature ->
list), with numpy: each step reads the next field of every message still
open, so the Python work grows with the number of fields in one Example,
not with the batch size. Only the features that a spec asks for are read
below the map-entry level.

Encodings the protobuf runtime accepts but this reader does not handle
(unpacked numeric lists, repeated `features` fields, duplicate keys, a
field of unknown number, multi-byte tags) make it return None; the caller
then parses with protobuf, which also gives the errors for malformed bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from torchestimator.io._columns import RawColumn
from torchestimator.io._specs import ParseSpec

_PAD = 16  # zero bytes after the data, so reading a varint never runs off the end
_TAG_OF_LIST = {"bytes_list": 0x0A, "float_list": 0x12, "int64_list": 0x1A}


class _Decline(Exception):
    """The batch holds an encoding this reader leaves to protobuf."""


def _varints(buf: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, byte count) of the varint starting at each of `at` (up to 5 bytes)."""
    b0 = buf[at]
    if (b0 < 0x80).all():
        return b0.astype(np.int64), np.ones(len(at), np.int64)
    value = (b0 & 0x7F).astype(np.int64)
    more = b0 >= 0x80
    size = np.ones(len(at), np.int64)
    for k in range(1, 5):
        b = buf[at + k]
        value += ((b & 0x7F).astype(np.int64) << (7 * k)) * more
        size += more
        more = more & (b >= 0x80)
    if more.any():
        raise _Decline
    return value, size


def _fields(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every length-delimited field of every span [starts, ends): (owner span, tag,
    payload start, payload end), ordered by owner then position."""
    owners, tags, p_starts, p_ends = [], [], [], []
    pos = starts.copy()
    active = np.flatnonzero(pos < ends)
    while active.size:
        p = pos[active]
        tag = buf[p]
        if ((tag & 0x87) != 0x02).any():  # one-byte tags of wire type 2 only
            raise _Decline
        b1 = buf[p + 1]
        if b1.max() < 0x80:  # the usual case: lengths under 128 bytes
            ps = p + 2
            pe = ps + b1
        else:
            length, size = _varints(buf, p + 1)
            ps = p + 1 + size
            pe = ps + length
        end = ends[active]
        if (pe > end).any():
            raise _Decline  # truncated: protobuf gives the error
        owners.append(active)
        tags.append(tag)
        p_starts.append(ps)
        p_ends.append(pe)
        pos[active] = pe
        active = active[pe < end]
    if not owners:
        empty = np.zeros(0, np.int64)
        return empty, np.zeros(0, np.uint8), empty, empty
    if len(owners) == 1:
        return owners[0], tags[0], p_starts[0], p_ends[0]
    owner = np.concatenate(owners)
    order = np.argsort(owner, kind="stable")
    return (owner[order], np.concatenate(tags)[order], np.concatenate(p_starts)[order],
            np.concatenate(p_ends)[order])


def _gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.uint8)
    offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return buf[offsets + np.arange(total, dtype=np.int64)]


def _decode_packed_varints(data: np.ndarray, chunk_ends: np.ndarray) -> np.ndarray:
    """The varints of concatenated packed chunks; each chunk must end a varint."""
    if not len(data):
        return np.zeros(0, np.int64)
    term = data < 0x80
    if len(chunk_ends) and not term[chunk_ends - 1].all():
        raise _Decline
    if term.all():
        return data.astype(np.int64)
    ends = np.flatnonzero(term)
    if ends[-1] != len(data) - 1:
        raise _Decline
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts + 1
    if lengths.max() > 10:
        raise _Decline
    shifts = (np.arange(len(data), dtype=np.int64) - np.repeat(starts, lengths)) * 7
    parts = (data & 0x7F).astype(np.uint64) << shifts.astype(np.uint64)
    return np.add.reduceat(parts, starts).view(np.int64)


def _read_values(buf: np.ndarray, kind: str, ex: np.ndarray, f_start: np.ndarray,
                 f_end: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(values, per-example counts) of the list fields [f_start, f_end) of examples `ex`
    (one field per string of a bytes_list, one packed chunk or more of numbers)."""
    lengths = f_end - f_start
    data = _gather(buf, f_start, f_end)
    if kind == "bytes_list":
        offsets = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        array = pa.LargeBinaryArray.from_buffers(
            pa.large_binary(), len(lengths), [None, pa.py_buffer(offsets), pa.py_buffer(data)])
        values = array.to_numpy(zero_copy_only=False)
        return values, np.bincount(ex, minlength=n).astype(np.int64)
    if kind == "float_list":
        if (lengths % 4).any():
            raise _Decline
        values = data.view("<f4").astype(np.float32)
        counts = np.bincount(ex, weights=lengths // 4, minlength=n).astype(np.int64)
        return values, counts
    values = _decode_packed_varints(data, np.cumsum(lengths)[lengths > 0])
    if not len(values):
        return values, np.zeros(n, np.int64)
    chunk_of_byte = np.repeat(np.arange(len(lengths)), lengths)
    value_chunk = chunk_of_byte[np.flatnonzero(data < 0x80)]
    counts = np.bincount(ex[value_chunk], minlength=n).astype(np.int64)
    return values, counts


def parse_walk(batch: Sequence[bytes], specs: Sequence[ParseSpec]) -> dict[str, RawColumn] | None:
    """Reads a batch of Examples with numpy, level by level; None to leave it to protobuf."""
    n = len(batch)
    try:
        return _parse(batch, specs, n)
    except _Decline:
        return None


def _parse(batch: Sequence[bytes], specs: Sequence[ParseSpec], n: int) -> dict[str, RawColumn]:
    lengths = np.fromiter(map(len, batch), np.int64, n)
    buf = np.frombuffer(b"".join(batch) + bytes(_PAD), np.uint8)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    # Example: one `features` field (1, LEN) per example, or none.
    owner, tag, f_start, f_end = _fields(buf, starts, ends)
    if (tag != 0x0A).any() or (len(owner) > 1 and (owner[1:] == owner[:-1]).any()):
        raise _Decline
    # Features: map entries (1, LEN).
    e_ex, tag, e_start, e_end = _fields(buf, f_start, f_end)
    if (tag != 0x0A).any():
        raise _Decline
    e_ex = owner[e_ex]
    # Entry: key (1) then value (2); a missing value is an empty Feature.
    k_entry, tag, k_start, k_end = _fields(buf, e_start, e_end)
    m = len(e_start)
    is_key = tag == 0x0A
    if ((tag != 0x0A) & (tag != 0x12)).any():
        raise _Decline
    key_count = np.bincount(k_entry[is_key], minlength=m)
    value_count = np.bincount(k_entry[~is_key], minlength=m)
    if (key_count != 1).any() or (value_count > 1).any():
        raise _Decline
    key_start = np.empty(m, np.int64)
    key_len = np.empty(m, np.int64)
    key_start[k_entry[is_key]] = k_start[is_key]
    key_len[k_entry[is_key]] = (k_end - k_start)[is_key]
    value_start = np.zeros(m, np.int64)
    value_end = np.zeros(m, np.int64)
    value_start[k_entry[~is_key]] = k_start[~is_key]
    value_end[k_entry[~is_key]] = k_end[~is_key]
    # The entries of the requested keys, all keys at once from here on.
    matched, which = [], []
    for j, spec in enumerate(specs):
        key = spec.key.encode("utf-8")
        cand = np.flatnonzero(key_len == len(key))
        if len(cand) and len(key):
            window = buf[key_start[cand][:, None] + np.arange(len(key))]
            cand = cand[(window == np.frombuffer(key, np.uint8)).all(axis=1)]
        matched.append(cand)
        which.append(np.full(len(cand), j, np.int64))
    cand = np.concatenate(matched)
    spec_of = np.concatenate(which)
    examples = e_ex[cand]
    pair = spec_of * n + examples  # sorted: entries come in example order within each key
    if len(pair) > 1 and (pair[1:] == pair[:-1]).any():
        raise _Decline  # a key twice in one Example: the last wins in protobuf
    # Feature: one list field (1 bytes, 2 float, 3 int64), or none (the feature is missing).
    fo, ftag, fl_start, fl_end = _fields(buf, value_start[cand], value_end[cand])
    if len(fo) > 1 and (fo[1:] == fo[:-1]).any():
        raise _Decline
    want = np.array([_TAG_OF_LIST[s.list_kind] for s in specs], np.uint8)
    if (ftag != want[spec_of[fo]]).any():
        raise _Decline  # another list kind: the protobuf path names the example and both kinds
    # The lists' fields: packed numbers, or one field per string.
    lo, ltag, v_start, v_end = _fields(buf, fl_start, fl_end)
    if (ltag != 0x0A).any():
        raise _Decline  # unpacked numbers (or an unknown field)
    list_spec = spec_of[fo]
    list_example = examples[fo]
    field_spec = list_spec[lo]
    field_example = list_example[lo]
    out: dict[str, RawColumn] = {}
    for j, spec in enumerate(specs):
        present = np.zeros(n, bool)
        present[list_example[list_spec == j]] = True
        mine = field_spec == j
        values, counts = _read_values(buf, spec.list_kind, field_example[mine], v_start[mine],
                                      v_end[mine], n)
        missing = ~present
        out[spec.key] = RawColumn(values, counts, missing if missing.any() else None)
    return out
