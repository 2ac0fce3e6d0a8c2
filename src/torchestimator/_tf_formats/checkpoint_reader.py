"""`tf.train.load_checkpoint`: a reader of one checkpoint, TensorFlow's format or ours."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from safetensors import safe_open

from torchestimator import _dtypes
from torchestimator._engine import checkpoint as ckpt
from torchestimator._tf_formats import engine_hooks
from torchestimator._tf_formats.tensor_bundle import TensorBundle

__all__ = ["CheckpointReader", "load_checkpoint"]


def _dtype(name: str) -> Any:
    if name in ("qint8", "quint8", "qint16", "quint16", "qint32"):
        name = {"qint8": "int8", "quint8": "uint8", "qint16": "int16", "quint16": "uint16"}.get(name, "int32")
    return _dtypes.as_dtype(name)


class CheckpointReader:
    """Reads the tensors of one checkpoint, as TF's `CheckpointReader` (what
    `tf.train.load_checkpoint` returns): `get_variable_to_shape_map()`,
    `get_variable_to_dtype_map()`, `has_tensor(name)`, `get_tensor(name)`.

    `prefix` is a checkpoint prefix in TensorFlow's format (`PREFIX.index` + data shards) or in
    ours (`PREFIX.safetensors` + `PREFIX.json`).
    """

    def __init__(self, prefix: str) -> None:
        self._prefix = os.fspath(prefix)
        self._bundle: TensorBundle | None = None
        if engine_hooks.is_tf(self._prefix):
            self._bundle = TensorBundle(self._prefix)
            self._shapes = {n: self._bundle.shape(n) for n in self._bundle.names()}
            self._dtypes = {n: self._bundle.dtype_name(n) for n in self._bundle.names()}
            self._tensors: dict[str, Any] | None = None
        else:
            tensors, _ = ckpt.load_checkpoint(self._prefix)
            self._tensors = tensors
            self._shapes = {n: list(t.shape) for n, t in tensors.items()}
            self._dtypes = {n: str(t.dtype).replace("torch.", "") for n, t in tensors.items()}

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """`{name: shape}` of every tensor in the checkpoint (shapes as lists of ints)."""
        return {n: list(s) for n, s in self._shapes.items()}

    def get_variable_to_dtype_map(self) -> dict[str, Any]:
        """`{name: dtype}` of every tensor in the checkpoint (`tf.float32`, `tf.string`, ...)."""
        return {n: _dtype(d) for n, d in self._dtypes.items()}

    def has_tensor(self, name: str) -> bool:
        """True if the checkpoint holds a tensor named `name`."""
        return name in self._shapes

    def get_tensor(self, name: str) -> np.ndarray:
        """The value of tensor `name` as a numpy array (bfloat16 as float32; strings as an object
        array of bytes). Raises KeyError (listing similar names) when there is none."""
        if self._bundle is not None:
            return self._bundle.get_tensor(name)

        if name not in self._shapes:
            return ckpt.load_variable(self._prefix, name)  # raises KeyError naming similar names
        tensor = self._tensors[name]
        if str(tensor.dtype) == "torch.bfloat16":
            tensor = tensor.float()
        return tensor.numpy().copy()

    def debug_string(self) -> bytes:
        """One line per tensor: `name (dtype) [shape]`, as bytes (TF's `debug_string`)."""
        lines = [f"{n} ({self._dtypes[n]}) {self._shapes[n]}" for n in sorted(self._shapes)]
        return ("\n".join(lines) + "\n").encode("utf-8")

    def __repr__(self) -> str:
        kind = "TensorFlow" if self._bundle is not None else "torchestimator"
        return f"CheckpointReader({self._prefix!r}, format={kind}, tensors={len(self._shapes)})"


def load_checkpoint(ckpt_dir_or_file: Any) -> CheckpointReader:
    """Returns a `CheckpointReader` for the checkpoint at `ckpt_dir_or_file`, as
    `tf.train.load_checkpoint`: a directory means its latest checkpoint.

    Raises:
      ValueError: the directory holds no checkpoint.
      FileNotFoundError / ValueError: no checkpoint at the prefix, or it is corrupt.
    """

    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        found = ckpt.latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        path = found
    return CheckpointReader(path)


def dtype_names(ckpt_dir_or_file: Any) -> dict[str, str]:
    """`{name: dtype name}` (`float32`, `int64`, `string`, ...) of the checkpoint at
    `ckpt_dir_or_file` (TF's format or ours), for `inspect-checkpoint`."""

    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        path = ckpt.latest_checkpoint(path) or path
    if engine_hooks.is_tf(path):
        with TensorBundle(path) as bundle:
            return {n: bundle.dtype_name(n) for n in bundle.names()}
    try:
        with safe_open(path + ckpt.TENSORS_SUFFIX, framework="pt") as f:
            return {n: _SAFETENSORS_DTYPES.get(str(f.get_slice(n).get_dtype()).upper(), "?") for n in f.keys()}
    except Exception:  # the listing itself reports an unreadable file
        return {}


_SAFETENSORS_DTYPES = {
    "F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64", "I8": "int8",
    "I16": "int16", "I32": "int32", "I64": "int64", "U8": "uint8", "U16": "uint16", "U32": "uint32",
    "U64": "uint64", "BOOL": "bool", "C64": "complex64", "C128": "complex128",
}
