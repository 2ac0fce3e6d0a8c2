"""`Dataset.save`, `Dataset.load` and `Dataset.snapshot`: a dataset's elements on disk.

Our own format (TF's snapshot protos are not written): a directory holding

* `dataset_spec.json`: format name and version, the element spec (structure,
  dtypes, shapes), the number of elements, the shard files and the codec;
* `shard_NNNNN.arrow`: Arrow IPC files, one per shard (`shard_func` picks an
  element's shard; one shard by default), each record batch a run of
  consecutive elements of equal shapes (one list column per component, as the
  file cache of `Dataset.cache` stores them).

Loading never runs code from the files: the JSON is parsed as data and checked
field by field (dtypes by name against the known list, shard names against a
fixed pattern inside the directory), Arrow IPC holds plain buffers, and no
pickle is involved. A save is written to a temporary directory and renamed into
place, so a crash never leaves a half-written dataset at `path`.

`compression`: None (no compression), "GZIP" or "ZSTD" (Arrow's zstd codec),
"SNAPPY" or "LZ4" (Arrow's lz4 codec; TF's snapshot "AUTO" too).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from torchestimator._dtypes import TensorSpec
from torchestimator.data.caching import (
    _decode,
    _dtype_name,
    encode_block,
    spec_from_json,
    spec_to_json,
)
from torchestimator.data.columns import Block, col_shape
from torchestimator.data.constants import UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.dataset_spec import DatasetSpec
from torchestimator.data.element_list import ElementsDataset
from torchestimator.data.grouping import scalar_int64
from torchestimator.data.mapping import call_on
from torchestimator.data.streams import BlockStream, ElementStream, iter_elements
from torchestimator.data.structure import flat_specs, make_packer, same_structure

FORMAT = "torchestimator.data.save"
VERSION = 1
SPEC_FILE = "dataset_spec.json"
_SHARD = re.compile(r"shard_[0-9]{5}\.arrow")
_MAX_SPEC_BYTES = 1 << 24  # a spec file larger than this is not one we wrote
_MAX_SHARDS = 100000
_ROWS = 1024  # elements per record batch at most
_CODECS = {None: None, "": None, "NONE": None, "GZIP": "zstd", "ZSTD": "zstd",
           "SNAPPY": "lz4", "LZ4": "lz4", "AUTO": "lz4"}
_tmp_ids = itertools.count()


def _codec(compression: Any, what: str = "compression") -> str | None:
    key = compression.upper() if isinstance(compression, str) else compression
    if key not in _CODECS:
        raise ValueError(f"`{what}` must be None, 'GZIP', 'SNAPPY', 'ZSTD' or 'LZ4'; received "
                         f"{compression!r}")
    return _CODECS[key]


def _check_path(path: Any) -> str:
    path = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(path, str) or not path:
        raise TypeError(f"`path` must be a non-empty str or os.PathLike; received {path!r}")
    return path


class _Writer:
    """Writes elements into shard files of a temporary directory; `finish` renames it to
    `path` (replacing what was there), `abort` removes it."""

    def __init__(self, path: str, spec: Any, codec: str | None, shard_func: Callable | None):
        self._path = path
        self._spec = spec
        self._spec_json = spec_to_json(spec)
        if self._spec_json is None:
            raise TypeError(
                f"Cannot save elements of structure {spec}: only (nested) dicts with str keys, "
                "tuples and TensorSpecs can be saved (convert namedtuples to tuples or dicts)")
        bad = [s for s in flat_specs(spec) if not isinstance(s, TensorSpec)]
        if bad:
            raise TypeError(f"Cannot save components of spec {bad[0]!r}; only tensors and "
                            "strings can be saved")
        self._codec = codec
        self._shard_func = shard_func
        self._pack = make_packer(spec) if shard_func is not None else None
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        self._tmp = os.path.join(parent, f".{os.path.basename(path)}.tmp-{os.getpid()}-"
                                         f"{next(_tmp_ids)}")
        os.makedirs(self._tmp)
        self._shards: dict[int, tuple[Any, list, list]] = {}  # shard -> (writer, pending, shapes)
        self._count = 0

    def _shard_of(self, flat: list) -> int:
        if self._shard_func is None:
            return 0
        index = scalar_int64(call_on(self._shard_func, self._pack(flat)), "shard_func")
        if not 0 <= index < _MAX_SHARDS:
            raise ValueError(f"`shard_func` must return a shard index in [0, {_MAX_SHARDS}); "
                             f"received {index}")
        return index

    def add(self, flat: list) -> None:
        """Adds one element (a flat list of components)."""
        shard = self._shard_of(flat)
        entry = self._shards.get(shard)
        if entry is None:
            entry = self._shards[shard] = (None, [], [])
        _, pending, shapes = entry
        signature = [col_shape(c) for c in flat]
        if pending and (signature != shapes[0] or len(pending) >= _ROWS):
            self._flush(shard)
            pending, shapes = self._shards[shard][1], self._shards[shard][2]
        pending.append(flat)
        if not shapes:
            shapes.append(signature)
        self._count += 1

    def _flush(self, shard: int) -> Any:
        writer, pending, _ = self._shards[shard]
        if pending:
            batch, meta = encode_block(Block.stack(pending, "save"))
            if writer is None:
                schema = batch.schema.with_metadata({"format": FORMAT})
                options = pa.ipc.IpcWriteOptions(compression=self._codec)
                writer = pa.ipc.new_file(os.path.join(self._tmp, _shard_name(shard)), schema,
                                         options=options)
            writer.write_batch(batch, custom_metadata=meta)
        self._shards[shard] = (writer, [], [])
        return writer

    def finish(self) -> None:
        """Closes the shards, writes the spec file and moves the directory to `path`."""
        names = []
        for shard in sorted(self._shards):
            writer = self._flush(shard)
            if writer is not None:
                writer.close()
                names.append(_shard_name(shard))
        spec = {"format": FORMAT, "version": VERSION, "element_spec": self._spec_json,
                "num_elements": self._count, "shards": names,
                "compression": self._codec}
        _write_json(os.path.join(self._tmp, SPEC_FILE), spec)
        _replace_dir(self._tmp, self._path)

    def abort(self) -> None:
        """Removes the temporary directory."""
        for writer, _, _ in self._shards.values():
            if writer is not None:
                try:
                    writer.close()
                except (OSError, pa.ArrowException):
                    pass
        shutil.rmtree(self._tmp, ignore_errors=True)


def _shard_name(shard: int) -> str:
    return f"shard_{shard:05d}.arrow"


def _write_json(file: str, data: Any) -> None:
    tmp = f"{file}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, file)


def _replace_dir(tmp: str, path: str) -> None:
    """Moves directory `tmp` to `path`, replacing an earlier save there."""
    if os.path.isfile(path):
        shutil.rmtree(tmp, ignore_errors=True)
        raise FileExistsError(f"`path` {path!r} is a file; save writes a directory there")
    old = None
    if os.path.exists(path):
        old = f"{tmp}.old"
        os.replace(path, old)
    os.replace(tmp, path)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def save(dataset: Dataset, path: Any, compression: Any = None, shard_func: Callable | None = None,
         checkpoint_args: Any = None) -> None:
    """Saves the elements of `dataset` under the directory `path` (TF's `Dataset.save`).

    `shard_func(element)` returns the int64 shard an element goes to (default: one
    shard). `checkpoint_args` (TF's resumable save) is not supported: a save is
    written whole, or not at all. Returns None.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"save expects a Dataset; received {type(dataset).__name__}")
    path = _check_path(path)
    codec = _codec(compression)
    if shard_func is not None and not callable(shard_func):
        raise TypeError(f"`shard_func` must be callable; received {shard_func!r}")
    if checkpoint_args:
        raise NotImplementedError(
            "save: `checkpoint_args` (a resumable save through tf.train.CheckpointManager) is "
            "not supported; call save without it (the save is written atomically instead)")
    writer = _Writer(path, dataset.element_spec, codec, shard_func)
    try:
        for flat in iter_elements(dataset._open()):
            writer.add(flat)
        writer.finish()
    except BaseException:
        writer.abort()
        raise


# ------------------------------------------------------------------------------- loading
def read_spec(path: str) -> dict:
    """The checked contents of `path`'s spec file; ValueError naming the file otherwise."""
    file = os.path.join(path, SPEC_FILE)
    if not os.path.isfile(file):
        raise FileNotFoundError(
            f"{file} not found: `path` {path!r} holds no dataset written by "
            "tf.data.Dataset.save (TF's own snapshot format is not read)")
    if os.path.getsize(file) > _MAX_SPEC_BYTES:
        raise ValueError(f"{file} is {os.path.getsize(file)} bytes, larger than a dataset spec "
                         "can be; it was not written by tf.data.Dataset.save")
    try:
        with open(file, encoding="utf-8") as f:
            data = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{file} is not a valid dataset spec (JSON): {e}") from None

    def bad(what: str) -> ValueError:
        return ValueError(f"{file} is not a valid dataset spec: {what}; it was not written by "
                          "tf.data.Dataset.save, or it is damaged")

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise bad(f"'format' must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise bad(f"unsupported version {data.get('version')!r} (this reader knows {VERSION})")
    n = data.get("num_elements")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise bad(f"'num_elements' must be a non-negative int, not {n!r}")
    shards = data.get("shards")
    if not isinstance(shards, list) or len(shards) > _MAX_SHARDS or not all(
            isinstance(s, str) and _SHARD.fullmatch(s) for s in shards):
        raise bad("'shards' must be a list of names shard_NNNNN.arrow")
    try:
        spec = _checked_spec(data.get("element_spec"))
    except (TypeError, ValueError, KeyError, RecursionError) as e:
        raise bad(f"bad 'element_spec' ({e})") from None
    return {"spec": spec, "num_elements": n, "shards": shards}


def _checked_spec(data: Any, depth: int = 0) -> Any:
    """`spec_from_json` after checking that `data` is exactly what `spec_to_json` writes."""
    if depth > 64 or not isinstance(data, dict) or len(data) not in (1, 2):
        raise ValueError("unexpected structure")
    if set(data) == {"spec"}:
        shape, dtype = data["spec"]
        if not isinstance(dtype, str) or not (shape is None or (isinstance(shape, list) and all(
                d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
                for d in shape))):
            raise ValueError(f"bad TensorSpec {data['spec']!r}")
    elif set(data) == {"dict", "ordered"}:
        if not isinstance(data["dict"], list) or not all(
                isinstance(kv, list) and len(kv) == 2 and isinstance(kv[0], str)
                for kv in data["dict"]):
            raise ValueError("bad dict entries")
        for _, v in data["dict"]:
            _checked_spec(v, depth + 1)
    elif set(data) == {"tuple"}:
        if not isinstance(data["tuple"], list):
            raise ValueError("bad tuple entries")
        for v in data["tuple"]:
            _checked_spec(v, depth + 1)
    else:
        raise ValueError(f"unexpected keys {sorted(data)}")
    return spec_from_json(data) if depth == 0 else None


def _read_shard(file: str, specs: list[TensorSpec]) -> Iterator[Block]:
    """The blocks of one shard file, each checked against the element spec."""
    dtypes = [_dtype_name(s.dtype) for s in specs]
    with pa.memory_map(file) as source:
        try:
            reader = pa.ipc.open_file(source)
        except pa.ArrowException as e:
            raise ValueError(f"{file} is not a valid shard (Arrow IPC file): {e}") from None
        if len(reader.schema) != len(specs):
            raise ValueError(f"{file} has {len(reader.schema)} columns but the dataset "
                             f"spec has {len(specs)} components")
        for i in range(reader.num_record_batches):
            try:
                batch, meta = reader.get_batch_with_custom_metadata(i)
                batch.validate(full=True)
                shapes = json.loads(meta[b"shapes"])
                n = int(meta[b"rows"])
            except (pa.ArrowException, KeyError, TypeError, ValueError) as e:
                raise ValueError(f"{file}: record batch {i} is damaged ({e})") from None
            if n != batch.num_rows or not isinstance(shapes, list) or len(shapes) != len(specs):
                raise ValueError(f"{file}: record batch {i} does not match its metadata")
            cols = []
            for j, (spec, dtype) in enumerate(zip(specs, dtypes)):
                shape = shapes[j]
                if not isinstance(shape, list) or not all(
                        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
                    raise ValueError(f"{file}: record batch {i} has a bad shape {shape!r}")
                if spec.shape is not None and not spec.shape.is_compatible_with(shape):
                    raise ValueError(f"{file}: component {j} has shape {shape} where the spec "
                                     f"says {spec.shape}")
                column = batch.column(j)
                if not pa.types.is_list(column.type) or len(column.flatten()) != n * int(
                        np.prod(shape, dtype=np.int64)):
                    raise ValueError(f"{file}: component {j} of record batch {i} does not hold "
                                     f"{n} values of shape {shape}")
                try:
                    cols.append(_decode(column, dtype, (n, *shape)))
                except (pa.ArrowException, TypeError, ValueError) as e:
                    raise ValueError(f"{file}: component {j} is not {dtype} data ({e})") from None
            yield Block(cols, n)


class ShardDataset(Dataset):
    """The elements of one shard file of a saved dataset."""

    def __init__(self, file: str, spec: Any):
        super().__init__()
        self._file = file
        self._spec = spec

    def _open(self):
        return BlockStream(_read_shard(self._file, flat_specs(self._spec)))

    def _compute_spec(self):
        return self._spec


class LoadDataset(Dataset):
    """The elements saved under a directory (`Dataset.load`)."""

    def __init__(self, path: str, element_spec: Any = None, reader_func: Callable | None = None):
        super().__init__()
        self._path = path
        info = read_spec(path)
        stored = info["spec"]
        if element_spec is not None and not _compatible(element_spec, stored):
            raise ValueError(
                f"`element_spec` {element_spec} does not match the spec of the dataset saved "
                f"at {path!r}: {stored}")
        self._spec = stored
        self._num_elements = info["num_elements"]
        self._shards = [ShardDataset(os.path.join(path, name), stored) for name in info["shards"]]
        for shard in self._shards:
            if not os.path.isfile(shard._file):
                raise FileNotFoundError(f"{shard._file} is listed in {SPEC_FILE} but missing")
        self._reader_func = reader_func
        self._read: Dataset | None = None

    def _reader(self) -> Dataset:
        if self._read is None:
            shards = ElementsDataset([[s] for s in self._shards], DatasetSpec(self._spec))
            if self._reader_func is None:
                self._read = shards.flat_map(lambda d: d) if self._shards else ElementsDataset(
                    [], self._spec)
            else:
                out = self._reader_func(shards)
                if not isinstance(out, Dataset):
                    raise TypeError(f"`reader_func` must return a Dataset; received "
                                    f"{type(out).__name__}")
                self._read = out
        return self._read

    def _open(self):
        return self._reader()._open()

    def _compute_spec(self):
        return self._spec

    def _compute_cardinality(self) -> int:
        return self._num_elements if self._reader_func is None else UNKNOWN_CARDINALITY


def _compatible(given: Any, stored: Any) -> bool:
    if not same_structure(given, stored):
        return False
    return all(isinstance(a, TensorSpec) and a.dtype == b.dtype and (
        a.shape is None or b.shape is None or (len(a.shape) == len(b.shape) and all(
            x is None or y is None or x == y for x, y in zip(a.shape, b.shape))))
        for a, b in zip(flat_specs(given), flat_specs(stored)))


def load(path: Any, element_spec: Any = None, compression: Any = None,
         reader_func: Callable | None = None) -> Dataset:
    """Loads a dataset saved with `Dataset.save` (TF's `tf.data.Dataset.load`).

    `element_spec`, when given, must match the saved spec. `compression` is read
    from the files (accepted for TF compatibility). `reader_func(datasets)` receives
    a dataset of the shard datasets and returns the dataset to read (default: the
    shards one after the other). Raises FileNotFoundError / ValueError naming the
    file when `path` holds no valid save.
    """
    path = _check_path(path)
    _codec(compression)
    if reader_func is not None and not callable(reader_func):
        raise TypeError(f"`reader_func` must be callable; received {reader_func!r}")
    return LoadDataset(path, element_spec, reader_func)


class SnapshotDataset(UnaryDataset):
    """Writes the first complete pass under `path`; later passes read it (`Dataset.snapshot`).

    A snapshot already at `path` (from an earlier program) is read when its element
    spec matches this pipeline's; delete the directory when the input pipeline changes.
    """

    def __init__(self, input_dataset: Dataset, path: str, compression: Any,
                 reader_func: Callable | None, shard_func: Callable | None):
        super().__init__((input_dataset,))
        self._path = _check_path(path)
        self._codec = _codec(compression)
        self._reader_func = reader_func
        self._shard_func = shard_func

    def _open(self):
        if os.path.isfile(os.path.join(self._path, SPEC_FILE)):
            # compared with this pipeline's spec when it is known (computing it may run a map)
            known = self._spec if self._spec is not None else self._input._spec
            stored = load(self._path, known, reader_func=self._reader_func)
            if self._spec is None:
                self._spec = stored.element_spec
            return stored._open()
        return ElementStream(self._writing())

    def _writing(self) -> Iterator[list]:
        writer = _Writer(self._path, self.element_spec, self._codec, self._shard_func)
        complete = False
        try:
            for flat in iter_elements(self._input._open()):
                writer.add(flat)
                yield flat
            complete = True
        finally:
            if complete:
                writer.finish()
            else:
                writer.abort()

    def _compute_spec(self):
        return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return self._input._compute_cardinality()

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None

