"""A vectorized reader of a batch of same-shaped serialized Examples (the serving fast path).

A serving client builds every Example of a request with the same code: the
same keys in the same order, the same number of values per feature. Their
bytes then differ only inside the value payloads (the 4-byte floats of a
float_list, the varints of a packed int64_list, the characters of
equal-length strings). This module reads the first Example's layout with a
small wire-format scanner, checks with numpy that every other Example has the
same length and the same bytes outside those payloads, and then slices every
feature's values out of the [batch, length] byte matrix at once: no Python
step per example.

Anything else (examples of different lengths, unpacked lists, repeated
fields, unknown fields) returns None, and the caller parses with protobuf.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from torchestimator.io._columns import RawColumn
from torchestimator.io._specs import ParseSpec

_LIST_OF_TAG = {0x0A: "bytes_list", 0x12: "float_list", 0x1A: "int64_list"}


class _Unusual(Exception):
    """The Example is valid protobuf, or not, but not of the simple shape read here."""


@dataclasses.dataclass
class _Entry:
    kind: str | None  # None: an empty Feature (no list): the feature counts as missing
    regions: list[tuple[int, int]]  # payload byte ranges: one (packed numbers) or one per string


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end or shift > 28:
            raise _Unusual
        b = buf[pos]
        result |= (b & 0x7F) << shift
        pos += 1
        if b < 0x80:
            return result, pos
        shift += 7


def _length_delimited(buf: bytes, pos: int, end: int, tag: int) -> tuple[int, int]:
    """(start, stop) of the field with one-byte `tag` at `pos`."""
    if pos >= end or buf[pos] != tag:
        raise _Unusual
    length, start = _varint(buf, pos + 1, end)
    if start + length > end:
        raise _Unusual
    return start, start + length


def _list_regions(buf: bytes, kind: str, start: int, stop: int) -> list[tuple[int, int]]:
    if kind == "bytes_list":
        regions = []
        pos = start
        while pos < stop:
            a, b = _length_delimited(buf, pos, stop, 0x0A)
            regions.append((a, b))
            pos = b
        return regions
    if start == stop:
        return [(start, start)]
    a, b = _length_delimited(buf, start, stop, 0x0A)
    if b != stop or (kind == "float_list" and (b - a) % 4):
        raise _Unusual
    return [(a, b)]


def scan_layout(buf: bytes) -> dict[str, _Entry]:
    """The features of one simply-shaped Example: key -> list kind and payload ranges."""
    end = len(buf)
    layout: dict[str, _Entry] = {}
    if end == 0:
        return layout
    start, stop = _length_delimited(buf, 0, end, 0x0A)
    if stop != end:
        raise _Unusual
    pos = start
    while pos < end:
        e_start, e_stop = _length_delimited(buf, pos, end, 0x0A)
        k_start, k_stop = _length_delimited(buf, e_start, e_stop, 0x0A)
        try:
            key = buf[k_start:k_stop].decode("utf-8")
        except UnicodeDecodeError:
            raise _Unusual from None
        if key in layout:
            raise _Unusual
        if k_stop == e_stop:
            layout[key] = _Entry(None, [])
        else:
            f_start, f_stop = _length_delimited(buf, k_stop, e_stop, 0x12)
            if f_stop != e_stop:
                raise _Unusual
            if f_start == f_stop:
                layout[key] = _Entry(None, [])
            else:
                kind = _LIST_OF_TAG.get(buf[f_start])
                if kind is None:
                    raise _Unusual
                l_start, l_stop = _length_delimited(buf, f_start, f_stop, buf[f_start])
                if l_stop != f_stop:
                    raise _Unusual
                layout[key] = _Entry(kind, _list_regions(buf, kind, l_start, l_stop))
        pos = e_stop
    return layout


def _decode_varints(region: np.ndarray) -> tuple[np.ndarray, np.ndarray, int | None] | None:
    """Packed varints of each row of `region` [n, width] -> (values, counts, the count when
    all rows have the same), None if malformed."""
    n, width = region.shape
    if width == 0:
        return np.zeros(0, np.int64), np.zeros(n, np.int64), 0
    if not (region[:, -1] < 0x80).all():
        return None
    flat = region.reshape(-1)
    if (flat < 0x80).all():
        return flat.astype(np.int64), np.full(n, width, np.int64), width
    ends = np.flatnonzero(flat < 0x80)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts + 1
    if lengths.max() > 10:
        return None
    shifts = (np.arange(len(flat), dtype=np.int64) - np.repeat(starts, lengths)) * 7
    parts = (flat & 0x7F).astype(np.uint64) << shifts.astype(np.uint64)
    values = np.add.reduceat(parts, starts).view(np.int64)
    counts = np.bincount(ends // width, minlength=n).astype(np.int64)
    return values, counts, None


def _strings(matrix: np.ndarray, regions: list[tuple[int, int]]) -> np.ndarray:
    n = matrix.shape[0]
    out = np.empty((n, len(regions)), dtype=object)
    for j, (a, b) in enumerate(regions):
        block = np.ascontiguousarray(matrix[:, a:b])
        column = pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(b - a), n, [None, pa.py_buffer(block)]) if b > a else None
        out[:, j] = column.to_numpy(zero_copy_only=False) if column is not None else b""
    return out.reshape(-1)


# The layouts seen lately, by Example length: (an Example's bytes, mask of the bytes that
# must equal them, layout). A server's requests come from the same clients: after the
# first request a batch is checked against the known layout with one numpy comparison.
_LAYOUTS: dict[int, tuple[np.ndarray, np.ndarray, dict[str, _Entry]]] = {}
_LAYOUTS_SIZE = 32


def _known_layout(matrix: np.ndarray) -> dict[str, _Entry] | None:
    known = _LAYOUTS.get(matrix.shape[1])
    if known is None:
        return None
    template, fixed, layout = known
    if ((matrix != template) & fixed).any():
        return None
    return layout


def parse_same_shaped(batch: Sequence[bytes], specs: Sequence[ParseSpec]
                      ) -> dict[str, RawColumn] | None:
    """Reads a batch of same-shaped Examples with numpy; None when the batch is not one."""
    n = len(batch)
    if n == 0:
        return None
    first = batch[0]
    length = len(first)
    if n > 1 and len(set(map(len, batch))) != 1:
        return None
    matrix = np.frombuffer(b"".join(batch) if n > 1 else first, dtype=np.uint8).reshape(n, length)
    layout = _known_layout(matrix)
    if layout is None:
        try:
            layout = scan_layout(first)
        except _Unusual:
            return None
        allowed = np.zeros(length, dtype=bool)
        for entry in layout.values():
            for a, b in entry.regions:
                allowed[a:b] = True
        if n > 1 and ((matrix[1:] != matrix[0]) & ~allowed).any():
            return None
        if len(_LAYOUTS) >= _LAYOUTS_SIZE:
            _LAYOUTS.clear()
        _LAYOUTS[length] = (matrix[0].copy(), ~allowed, layout)
    out: dict[str, RawColumn] = {}
    for spec in specs:
        entry = layout.get(spec.key)
        if entry is None or entry.kind is None:
            out[spec.key] = RawColumn(np.zeros(0, spec.np_dtype), np.zeros(n, np.int64),
                                      np.ones(n, bool))
            continue
        if entry.kind != spec.list_kind:
            return None  # the protobuf path raises the error, naming example 0
        if entry.kind == "float_list":
            a, b = entry.regions[0]
            values = np.array(matrix[:, a:b]).view("<f4").astype(np.float32, copy=False)
            count = (b - a) // 4
            out[spec.key] = RawColumn(values.reshape(-1), np.full(n, count, np.int64), None, count)
        elif entry.kind == "int64_list":
            a, b = entry.regions[0]
            decoded = _decode_varints(matrix[:, a:b])
            if decoded is None:
                return None
            out[spec.key] = RawColumn(decoded[0], decoded[1], None, decoded[2])
        else:
            count = len(entry.regions)
            out[spec.key] = RawColumn(_strings(matrix, entry.regions),
                                      np.full(n, count, np.int64), None, count)
    return out
