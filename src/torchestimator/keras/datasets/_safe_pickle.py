"""Reading the pickled parts of Keras' dataset files without running code from them.

Keras 2.15 reads the CIFAR batches with `pickle.load` and the object arrays of
`imdb.npz` / `reuters.npz` with `np.load(allow_pickle=True)`: a crafted file
would run any command while loading. Here a restricted unpickler resolves only
the few numpy names that a pickled array needs (nothing else: not `os`,
`subprocess`, `builtins.eval`, ...); any other global raises
`UnpicklingError` naming the file and the refused name.
"""

from __future__ import annotations

import os
import pickle
import zipfile
from typing import Any, BinaryIO

import numpy as np


def _latin1_encode(obj: str, encoding: str = "utf-8", errors: str = "strict") -> bytes:
    """`_codecs.encode` as Python 3 protocol-2 pickles use it for `bytes` (latin-1 only)."""
    if not isinstance(obj, str) or encoding.lower().replace("_", "-") not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(
            f"Refusing a pickled call _codecs.encode(..., {encoding!r}): a dataset file only "
            "encodes bytes with 'latin1'."
        )
    return obj.encode("latin1", errors)


def _numpy_globals() -> dict[tuple[str, str], Any]:
    """The (module, name) pairs a pickled numpy array or scalar (and bytes) uses, for numpy 1
    and 2."""
    reconstruct = np.zeros(1).__reduce__()[0]  # numpy.(_)core.multiarray._reconstruct
    scalar = np.float64(0).__reduce__()[0]  # numpy.(_)core.multiarray.scalar
    frombuffer = np.zeros(1).__reduce_ex__(5)[0]  # numpy.(_)core.numeric._frombuffer
    allowed: dict[tuple[str, str], Any] = {}
    for core in ("numpy.core", "numpy._core"):
        allowed[(f"{core}.multiarray", "_reconstruct")] = reconstruct
        allowed[(f"{core}.multiarray", "scalar")] = scalar
        allowed[(f"{core}.numeric", "_frombuffer")] = frombuffer
    allowed[("numpy", "ndarray")] = np.ndarray
    allowed[("numpy", "dtype")] = np.dtype
    allowed[("_codecs", "encode")] = _latin1_encode  # bytes in Python 3 protocol-2 pickles
    return allowed


_ALLOWED = _numpy_globals()


class _RestrictedUnpickler(pickle.Unpickler):
    """An unpickler whose `find_class` knows only numpy's array and scalar rebuilders."""

    def __init__(self, file: BinaryIO, source: str, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        self._source = source

    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(
                f"Refusing to load {self._source}: its pickle names the global "
                f"'{module}.{name}', but only numpy arrays, numbers, strings, lists and dicts "
                "may appear in a dataset file (loading never runs code from a file). The file "
                "is not a genuine Keras dataset file: delete it and download it again."
            )
        return found

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError(
            f"Refusing to load {self._source}: it uses pickle persistent ids, which a dataset "
            "file never has."
        )


def safe_pickle_load(file: BinaryIO, source: str, encoding: str = "ASCII") -> Any:
    """Unpickles `file` allowing only plain containers, numbers, strings and numpy arrays.

    Args:
        file: a binary file object positioned at the pickle.
        source: the file's name, for error messages.
        encoding: how Python 2 `str` objects are decoded ('bytes' keeps them as bytes).

    Returns:
        The unpickled object. Raises `pickle.UnpicklingError` for anything else.
    """
    return _RestrictedUnpickler(file, source, encoding=encoding).load()


def _read_npy(file: BinaryIO, source: str) -> np.ndarray:
    """Reads one `.npy` stream; object arrays through the restricted unpickler."""
    version = np.lib.format.read_magic(file)
    if version == (1, 0):
        shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(file)
    elif version == (2, 0):
        shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(file)
    else:
        shape, fortran_order, dtype = np.lib.format._read_array_header(file, version)
    if dtype.hasobject:
        array = safe_pickle_load(file, source, encoding="latin1")
        if not isinstance(array, np.ndarray):
            raise ValueError(
                f"{source}: the .npy header announces an object array of shape {shape}, but the "
                f"pickled payload is a {type(array).__name__}."
            )
        return array
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    data = file.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise ValueError(
            f"{source}: expected {count * dtype.itemsize} bytes of array data for shape {shape} "
            f"and dtype {dtype}, found {len(data)}. The file is truncated: download it again."
        )
    array = np.frombuffer(data, dtype=dtype, count=count)
    if fortran_order:
        return array.reshape(shape[::-1]).transpose().copy()
    return array.reshape(shape).copy()


def load_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Loads every array of an `.npz` file as `np.load(path, allow_pickle=True)` would, but
    reads object arrays with the restricted unpickler.

    Returns:
        A dict from array name (without `.npy`) to numpy array.
    """
    source = os.fspath(path)
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(source) as archive:
        for member in archive.namelist():
            key = member[: -len(".npy")] if member.endswith(".npy") else member
            with archive.open(member) as stream:
                arrays[key] = _read_npy(stream, f"{source}[{member}]")
    return arrays
