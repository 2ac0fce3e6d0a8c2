"""The conversions tf.strings' ops share: bytes and str decoding, string arrays, Arrow round trips,
the ragged-input decorator, units and numeric results."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from torchestimator._ops.convert import dtype_name
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor
_ASCII_WS = " \t\n\v\f\r"
_TOKEN = re.compile(r"[^ \t\n\v\f\r]+")


# ---------------------------------------------------------------------------- conversion
def _decode(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                f"tf.strings: {bytes(value)[:40]!r} is not valid UTF-8; torchestimator's strings "
                "are Python str (text), decode or pass the text."
            ) from None
    return value


_decode_all = np.frompyfunc(_decode, 1, 1)


def _is_ragged(value: Any) -> bool:
    """A list whose items are lists/arrays of different lengths (TF's ragged rows)."""
    if not isinstance(value, list) or not value:
        return False
    if not all(isinstance(v, (list, tuple, np.ndarray)) for v in value):
        return False
    return len({len(v) for v in value}) > 1


def _strings(value: Any, op: str, name: str = "input") -> np.ndarray:
    """`value` as a numpy object array of str (any shape; 0-d for a scalar)."""
    if isinstance(value, np.ndarray):
        array = value
    elif isinstance(value, Tensor):
        raise TypeError(
            f"{op}: `{name}` must be strings, got a {dtype_name(value.dtype)} tensor; use "
            "tf.strings.as_string to format numbers."
        )
    else:
        if isinstance(value, (str, bytes)):
            return np.array(_decode(value), dtype=object)
        array = np.asarray(value, dtype=object)
    kind = array.dtype.kind
    if kind == "U":
        return array.astype(object)
    if kind == "S":
        return _decode_all(array).astype(object) if array.size else array.astype(object)
    if kind == "O":
        if array.size == 0:
            return array
        items = array.reshape(-1).tolist()
        types = {type(v) for v in items}
        if types <= {str}:
            return array
        if all(isinstance(v, (str, bytes, bytearray)) for v in items):  # np.str_, bytes, subclasses
            return _decode_all(array).astype(object)
        bad = next(v for v in items if not isinstance(v, (str, bytes, bytearray)))
        raise TypeError(
            f"{op}: `{name}` must be strings, got {bad!r} ({type(bad).__name__}); use "
            "tf.strings.as_string to format numbers."
        )
    raise TypeError(
        f"{op}: `{name}` must be strings, got an array of dtype {array.dtype}; use "
        "tf.strings.as_string to format numbers."
    )


def _arrow(array: np.ndarray) -> pa.Array:
    """A flat PyArrow string array of `array`'s values (C order)."""
    strings = pa.array(array.reshape(-1), type=pa.string())  # (large_string converts slowly)
    return strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings


def _back(result: pa.Array | pa.ChunkedArray, shape: tuple) -> np.ndarray:
    """A PyArrow string result as a numpy object array of `shape`."""
    out = result.to_numpy(zero_copy_only=False)
    if out.dtype != object:
        out = out.astype(object)
    return out.reshape(shape)


def _ragged(fn):
    """Lets an elementwise op take a list of rows of different lengths (TF's ragged values):
    the op runs once over all values and the result is split back into rows."""

    def wrapper(input: Any, *args: Any, **kwargs: Any) -> Any:
        if type(input).__name__ == "RaggedTensor" and hasattr(input, "with_flat_values"):
            return input.with_flat_values(fn(input.flat_values, *args, **kwargs))  # TF's dispatch
        if _is_ragged(input):
            rows = [_strings(r, fn.__name__) for r in input]
            if any(r.ndim != 1 for r in rows):
                raise ValueError(
                    f"{fn.__name__}: ragged input must be a list of 1-D rows of strings."
                )
            lengths = [len(r) for r in rows]
            flat = np.concatenate(rows) if rows else np.zeros(0, object)
            out = fn(flat.astype(object), *args, **kwargs)
            bounds = np.cumsum([0] + lengths)
            return [out[bounds[i]:bounds[i + 1]] for i in range(len(rows))]
        return fn(input, *args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


def _unit(unit: str, op: str) -> str:
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'unit' of \"{unit}\" is not in the list of allowed "
            "values: \"BYTE\", \"UTF8_CHAR\""
        )
    return unit


def _tensor(array: np.ndarray, dtype: torch.dtype) -> Tensor:
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
    array = np.require(array, requirements=["C", "W"])
    return torch.from_numpy(array).to(dtype)
