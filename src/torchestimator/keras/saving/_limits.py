"""Size limits for loading Keras files: what a crafted file may make the loader allocate.

* Zip members (`.keras` archives) are read only after their sizes, as the zip's central
  directory declares them, are checked: against a cap per member kind, against the archive's
  real size (a member cannot be bigger than the file holding it; a stored member's size is its
  compressed size), and, for a compressed member, against `MAX_COMPRESSION_RATIO` times its
  compressed size. They are then read in `READ_CHUNK` pieces up to the declared size, so a
  header that lies about a size fails instead of allocating more.
* Building a model from a config (`units=10**12`) may allocate only about as many bytes as the
  file holds weights: `allocation_budget` counts the bytes torch's factory functions
  (`torch.empty`, `zeros`, `randn`, ...) are asked for while the model is built and refuses,
  before allocating, a request past `BUILD_BUDGET_FACTOR` x the weight bytes +
  `BUILD_BUDGET_SLACK`, naming the layer, the weight and the file.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import zipfile
from collections.abc import Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

#: A JSON member (config.json, metadata.json, optimizer.json) may be at most this big.
MAX_JSON_MEMBER_BYTES = 64 * 2**20
#: Any member may declare at most this many bytes (a sanity cap on zip64 size fields).
MAX_MEMBER_BYTES = 64 * 2**30
#: A compressed member may inflate to at most this many times its compressed size (deflate's
#: own limit is about 1032; weights compress about 1.1x): past it, a decompression bomb.
MAX_COMPRESSION_RATIO = 100
#: Compressed members this small are not held to the ratio (tiny JSON compresses well).
SMALL_MEMBER_BYTES = 2**20
#: Members are read in pieces of this size.
READ_CHUNK = 2**20
#: Building a model may ask torch for at most this many times the weight bytes in the file...
BUILD_BUDGET_FACTOR = 4
#: ... plus this many bytes (buffers and temporaries of small models).
BUILD_BUDGET_SLACK = 256 * 2**20


def _fail(source: str, member: str, problem: str) -> ValueError:
    """The ValueError for a member whose sizes are refused."""
    return ValueError(
        f"{source} is not a safe model archive: {member} {problem}. Refusing to read it (the "
        "file is damaged or crafted); save the model again or use an earlier copy."
    )


def check_member(info: zipfile.ZipInfo, archive_size: int, cap: int, source: str) -> None:
    """Raises ValueError naming `source` and the member when `info`'s declared sizes are past
    `cap`, do not fit an archive of `archive_size` bytes, or inflate more than
    `MAX_COMPRESSION_RATIO`; returns None when the member may be read."""
    name, size, packed = info.filename, info.file_size, info.compress_size
    if size > min(cap, MAX_MEMBER_BYTES):
        raise _fail(source, name, f"declares {size} bytes, more than the {min(cap, MAX_MEMBER_BYTES)}"
                    " this loader reads for it")
    if packed > archive_size or info.header_offset + packed > archive_size:
        raise _fail(source, name, f"declares {packed} compressed bytes at offset "
                    f"{info.header_offset}, past the end of the {archive_size}-byte file")
    if info.compress_type == zipfile.ZIP_STORED and size != packed:
        raise _fail(source, name, f"is stored uncompressed but declares {size} bytes and "
                    f"{packed} stored bytes")
    if info.compress_type != zipfile.ZIP_STORED and size > max(
            SMALL_MEMBER_BYTES, packed * MAX_COMPRESSION_RATIO):
        raise _fail(source, name, f"would inflate {packed} compressed bytes to {size} bytes, more "
                    f"than {MAX_COMPRESSION_RATIO} times (a decompression bomb)")


def read_member(archive: zipfile.ZipFile, name: str, source: str,
                cap: int = MAX_MEMBER_BYTES) -> bytes:
    """Returns member `name` of `archive` after `check_member`, read in `READ_CHUNK` pieces
    and never past its declared size (ValueError naming `source` if the data disagrees)."""
    info = archive.getinfo(name)
    archive_size = _archive_size(archive)
    check_member(info, archive_size, cap, source)
    parts, total = [], 0
    with archive.open(info) as stream:
        while True:
            chunk = stream.read(min(READ_CHUNK, info.file_size - total + 1))
            if not chunk:
                break
            total += len(chunk)
            if total > info.file_size:
                raise _fail(source, name, f"holds more than the {info.file_size} bytes it declares")
            parts.append(chunk)
    if total != info.file_size:
        raise _fail(source, name, f"holds {total} bytes, not the {info.file_size} it declares")
    return b"".join(parts)


def _archive_size(archive: zipfile.ZipFile) -> int:
    """The size in bytes of the file (or buffer) behind `archive`."""
    handle = archive.fp
    if archive.filename and os.path.exists(archive.filename):
        return os.path.getsize(archive.filename)
    position = handle.tell()
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(position)
    return size


def tensor_bytes(tensors: dict[str, torch.Tensor]) -> int:
    """The bytes `tensors` hold."""
    return sum(t.numel() * t.element_size() for t in tensors.values())


def path_bytes(path: str) -> int:
    """The size of a file, or the total size of the files under a directory."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(root, f))
                   for root, _, files in os.walk(path) for f in files)
    return os.path.getsize(path)


_FACTORIES = {
    torch.empty, torch.zeros, torch.ones, torch.rand, torch.randn, torch.full, torch.randint,
    torch.eye, torch.arange, torch.empty_strided, torch.randperm, torch.linspace,
    torch.Tensor.new_empty, torch.Tensor.new_zeros, torch.Tensor.new_ones, torch.Tensor.new_full,
}


def _dims(value: Any) -> list[int] | None:
    """`value` as a list of dimensions when it is a size (a sequence of ints), else None."""
    if isinstance(value, (tuple, list, torch.Size)) and all(
            isinstance(d, int) and not isinstance(d, bool) for d in value):
        return list(value)
    return None


def _requested_elements(func: Any, args: tuple, kwargs: dict) -> int:
    """How many elements the factory call `func(*args, **kwargs)` asks for (0 if unknown)."""
    if "size" in kwargs and _dims(kwargs["size"]) is not None:
        return math.prod(max(d, 0) for d in _dims(kwargs["size"]))
    if func in (torch.Tensor.new_empty, torch.Tensor.new_zeros, torch.Tensor.new_ones,
                torch.Tensor.new_full):
        args = args[1:]
    if func is torch.eye:
        n = args[0] if args else kwargs.get("n", 0)
        m = args[1] if len(args) > 1 and isinstance(args[1], int) else kwargs.get("m", n)
        return max(int(n), 0) * max(int(m), 0) if isinstance(n, int) else 0
    if func is torch.arange:
        return _arange_elements(args)
    if func is torch.linspace:
        steps = args[2] if len(args) > 2 else kwargs.get("steps", 0)
        return max(int(steps), 0) if isinstance(steps, int) else 0
    if func is torch.randperm:
        return max(int(args[0]), 0) if args and isinstance(args[0], int) else 0
    for arg in args:  # a size given as a sequence (also randint's last argument)
        if _dims(arg) is not None:
            return math.prod(max(d, 0) for d in arg)
    ints = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
    return math.prod(max(d, 0) for d in ints) if ints else 0


def _arange_elements(args: tuple) -> int:
    """How many elements `torch.arange(*args)` asks for (0 when unknown)."""
    numbers = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
    if not numbers:
        return 0
    start, end, step = ([0.0] + numbers + [1.0])[:3] if len(numbers) == 1 else (numbers + [1.0])[:3]
    try:
        return max(math.ceil((end - start) / step), 0) if step else 0
    except (OverflowError, ValueError):
        return 2**62  # an infinite range: past any budget


def _building_weight() -> str:
    """`layer 'name' (Class), weight 'kernel' of shape (...)`, read from the `add_weight` frame
    being run (else the innermost layer method running), or "a layer" when none is found (only
    used for the error message)."""
    frame = sys._getframe(2)
    while frame is not None:
        local = frame.f_locals
        owner = local.get("self")
        if frame.f_code.co_name == "add_weight" and hasattr(owner, "name"):
            return (f"layer {owner.name!r} ({type(owner).__name__}), weight "
                    f"{local.get('name')!r} of shape {local.get('shape')}")
        frame = frame.f_back
    frame = sys._getframe(2)
    while frame is not None:  # not adding a weight: the innermost layer running
        owner = frame.f_locals.get("self")
        if all(hasattr(owner, a) for a in ("name", "get_config", "built")):
            return f"layer {owner.name!r} ({type(owner).__name__})"
        frame = frame.f_back
    return "a layer"


class _Budget(TorchFunctionMode):
    """Counts the bytes torch's factory functions are asked for and refuses those past
    `limit` (see `allocation_budget`)."""

    def __init__(self, source: str, stored: int, limit: int) -> None:
        super().__init__()
        self.source, self.stored, self.limit, self.used = source, stored, limit, 0

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func in _FACTORIES:
            dtype = kwargs.get("dtype")
            itemsize = dtype.itemsize if isinstance(dtype, torch.dtype) else 8
            requested = _requested_elements(func, args, kwargs) * itemsize
            if self.used + requested > self.limit:
                raise ValueError(
                    f"{self.source}: building {_building_weight()} would allocate {requested} "
                    f"bytes, but the file holds only {self.stored} bytes of weights (this loader "
                    f"allows {self.limit} bytes while building, {self.used} already used). The "
                    "config's sizes (units, filters, input_dim, output_dim, shapes) do not match "
                    "the weights saved with it: the file is damaged or crafted."
                )
            self.used += requested
        return func(*args, **kwargs)


@contextlib.contextmanager
def allocation_budget(source: str, stored_bytes: int) -> Iterator[None]:
    """Within this block, building a model may ask torch's factory functions for at most
    `BUILD_BUDGET_FACTOR * stored_bytes + BUILD_BUDGET_SLACK` bytes in all; a request past
    that is a ValueError naming `source`, the layer and the weight, raised before anything is
    allocated. Yields nothing."""
    limit = BUILD_BUDGET_FACTOR * max(int(stored_bytes), 0) + BUILD_BUDGET_SLACK
    with _Budget(source, int(stored_bytes), limit):
        yield
