"""JSON values to input arrays and output tensors to JSON, as TF Serving's `json_tensor.cc`.

Inputs: a (nested) JSON list becomes one array of the signature input's dtype,
its shape read from the nesting (every list at one level must have the same
length). Numbers are checked against the dtype as TF Serving does: a float
input takes JSON numbers, an integer input only whole-number tokens, a bool
input only `true`/`false`, a string input JSON strings or `{"b64": ...}`
objects (decoded to bytes). `NaN`, `Infinity` and `-Infinity` are accepted.

Outputs: tensors become nested lists; float32 values are written with the
fewest digits (6, else 9) that give back the same float32, as TF Serving writes
them; string outputs are JSON strings, except those whose name ends in
`_bytes`, which are written as `{"b64": ...}`.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import dtype_name
from torchestimator.serving._errors import RequestError, shorten

_NUMPY_DTYPES = {
    "float16": np.float16, "bfloat16": np.float32, "float32": np.float32, "float64": np.float64,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "bool": np.bool_,
}
_ACCEPTED_KINDS = {"f": "iuf", "i": "iu", "u": "iu", "b": "b"}
_JSON_TYPE = {bool: "Bool", int: "Number", float: "Number", str: "String", dict: "Object",
              list: "Array", type(None): "Null"}


def spec_dtype_name(spec: Any) -> str:
    """The TF name ('float32', 'string', ...) of a TensorSpec's dtype."""
    return dtype_name(spec.dtype)


def is_b64_object(value: Any) -> bool:
    """True for TF Serving's binary-value object `{"b64": "<base64 text>"}`."""
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("b64"), str)


def decode_b64(value: Any, where: str) -> bytes:
    """The bytes of a `{"b64": ...}` object; a RequestError naming `where` if malformed."""
    if not is_b64_object(value):
        raise RequestError(
            f"{where}: JSON value {shorten(value)} is not formatted correctly for base64 data; "
            'binary values are written as {"b64": "<base64 text>"} (one key, a string value)')
    text = value["b64"]
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise RequestError(
            f"{where}: unable to base64 decode {shorten(text, 60)}; expected standard base64 "
            "(A-Z, a-z, 0-9, '+', '/', '=' padding)") from None


def json_type(value: Any) -> str:
    """TF Serving's name of a JSON value's type ('Number', 'String', 'Object', ...)."""
    return _JSON_TYPE.get(type(value), type(value).__name__)


def decode_input(value: Any, name: str, spec: Any) -> np.ndarray:
    """Returns the array for signature input `name` (a TensorSpec) from its JSON `value`.

    Raises RequestError (400) naming the input when the nesting is not a tensor,
    a value has the wrong JSON type, a number does not fit the dtype, or the
    shape does not match the spec (the batch dimension may be anything).
    """
    dtype = spec_dtype_name(spec)
    if dtype == "string":
        array = _decode_strings(value, name)
    elif dtype in _NUMPY_DTYPES:
        array = _decode_numbers(value, name, dtype)
    else:
        raise RequestError(f"input '{name}': conversion of JSON values to {dtype} is not supported")
    _check_shape(array, name, spec)
    return array


def _decode_strings(value: Any, name: str) -> np.ndarray:
    shape: list[int] = []
    probe = value
    while isinstance(probe, list):
        shape.append(len(probe))
        if not probe:
            break
        probe = probe[0]
    flat: list[bytes] = []
    _collect_strings(value, 0, shape, flat, name)
    array = np.empty(len(flat), dtype=object)
    array[:] = flat
    return array.reshape(shape)


def _collect_strings(value: Any, level: int, shape: list[int], out: list, name: str) -> None:
    if isinstance(value, list):
        if level >= len(shape) or len(value) != shape[level]:
            raise RequestError(
                f"input '{name}': the nested lists do not form a tensor: a list of {len(value)} "
                f"at level {level} where the first element's nesting gives shape {shape}")
        for item in value:
            _collect_strings(item, level + 1, shape, out, name)
        return
    if level != len(shape):
        raise RequestError(
            f"input '{name}': the nested lists do not form a tensor: JSON value {shorten(value)} "
            f"found at level {level}; expected every value at level {len(shape)} (shape {shape})")
    if isinstance(value, str):
        out.append(value.encode("utf-8"))
    elif isinstance(value, dict):
        out.append(decode_b64(value, f"input '{name}'"))
    else:
        raise RequestError(
            f"input '{name}': JSON value {shorten(value)} Type: {json_type(value)} is not of "
            'expected type: string (a JSON string, or {"b64": ...} for binary data)')


def _decode_numbers(value: Any, name: str, dtype: str) -> np.ndarray:
    if isinstance(value, dict):
        raise RequestError(
            f"input '{name}': JSON value {shorten(value)} Type: Object is not of expected type: "
            f"{dtype}")
    try:
        raw = np.asarray(value)
    except ValueError as error:
        raise RequestError(
            f"input '{name}': the nested lists do not form a tensor (lists at one level have "
            f"different lengths): {error}") from None
    target = np.dtype(_NUMPY_DTYPES[dtype])
    if raw.dtype.kind not in _ACCEPTED_KINDS[target.kind]:
        bad = _first_wrong_value(value, target.kind)
        if raw.dtype.kind == "O" and bad is None:
            raise RequestError(
                f"input '{name}': the nested lists do not form a tensor of {dtype} (mixed "
                "nesting depths, or a number outside the 64-bit range)")
        raise RequestError(
            f"input '{name}': JSON value {shorten(bad)} Type: {json_type(bad)} is not of expected "
            f"type: {dtype}" + (" (whole numbers only)" if target.kind in "iu" else ""))
    if target.kind in "iu" and raw.size and raw.dtype != target:
        info = np.iinfo(target)
        low, high = raw.min(), raw.max()
        if low < info.min or high > info.max:
            bad = low if low < info.min else high
            raise RequestError(f"input '{name}': value {bad} is outside the range of {dtype} "
                               f"[{info.min}, {info.max}]")
    with np.errstate(over="ignore", invalid="ignore"):
        array = raw.astype(target, copy=False)
    if target.kind == "f" and raw.dtype.kind == "f" and target.itemsize < raw.dtype.itemsize:
        lossy = np.isinf(array) & np.isfinite(raw)
        if lossy.any():
            raise RequestError(f"input '{name}': cannot convert JSON value {raw[lossy].flat[0]!r} "
                               f"to {dtype} without loss of precision (outside its range)")
    return array


def _first_wrong_value(value: Any, kind: str) -> Any:
    """The first leaf of a nested list whose JSON type the dtype kind refuses."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
            continue
        if kind == "b":
            ok = isinstance(item, bool)
        elif kind == "f":
            ok = isinstance(item, (int, float)) and not isinstance(item, bool)
        else:
            ok = isinstance(item, int) and not isinstance(item, bool)
        if not ok:
            return item
    return None


def _check_shape(array: np.ndarray, name: str, spec: Any) -> None:
    expected = getattr(spec, "shape", None)
    if expected is None:
        return
    actual = array.shape
    if len(actual) != len(expected) or any(
            e is not None and e != a for e, a in zip(expected, actual)):
        shown = "[" + ", ".join("-1" if d is None else str(d) for d in expected) + "]"
        raise RequestError(
            f"input '{name}': expected shape {shown} (-1: any size), got {list(actual)}")


# ----------------------------------------------------------------------------------- outputs
def to_numpy(value: Any) -> np.ndarray:
    """A signature output (torch tensor, numpy array, list) as a numpy array."""
    if isinstance(value, torch.Tensor):
        tensor = value.detach().cpu()
        if tensor.dtype in (torch.bfloat16, torch.float16):
            tensor = tensor.float()
        return tensor.numpy()
    return np.asarray(value)


def float32_for_json(array: np.ndarray) -> np.ndarray:
    """float64 values that print (Python repr) as TF Serving prints these float32 values:
    6 significant digits when they give back the same float32, else 9."""
    if array.size <= _SMALL:
        return np.asarray([_short(v) for v in array.ravel().tolist()],
                          dtype=np.float64).reshape(array.shape)
    x = array.astype(np.float64)
    out = x.copy()
    usable = np.isfinite(x) & (x != 0)
    if not usable.any():
        return out
    with np.errstate(all="ignore"):
        exponent = np.floor(np.log10(np.abs(np.where(usable, x, 1.0))))
        pending = usable.copy()
        for digits in (6, 9):
            power = (digits - 1) - exponent
            mask = pending & (np.abs(power) <= 22)
            scale = np.power(10.0, np.abs(power))
            up = np.round(x * scale) / scale
            down = np.round(x / scale) * scale
            rounded = np.where(power >= 0, up, down)
            good = mask & (rounded.astype(np.float32) == array)
            out[good] = rounded[good]
            pending &= ~good
    for index in np.flatnonzero(pending):  # magnitudes past 1e±17: rare, formatted one by one
        value = array.flat[index]
        for digits in (6, 9):
            text = f"{float(value):.{digits}g}"
            if np.float32(text) == value:
                out.flat[index] = float(text)
                break
    return out


_SMALL = 64  # below this many values, formatting one by one beats numpy's per-call cost
_F32 = struct.Struct("f")


def _short(value: float) -> float:
    """One float32 value (given as the float64 equal to it) with 6 digits if they give it back,
    else 9 (non-finite values as they are)."""
    if value != value or value in (_INF, -_INF) or value == 0:
        return value
    packed = _F32.pack(value)
    short = float(f"{value:.6g}")
    if _F32.pack(short) == packed:
        return short
    short = float(f"{value:.9g}")
    return short if _F32.pack(short) == packed else value


_INF = float("inf")


def _string_leaf(value: Any, as_bytes: bool) -> Any:
    if isinstance(value, str):
        value = value.encode("utf-8") if as_bytes else value
        if not as_bytes:
            return value
    if isinstance(value, (bytes, bytearray, np.bytes_)):
        if not as_bytes:
            try:
                return bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                pass  # not text: base64 it rather than write invalid JSON
        return {"b64": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def output_to_json(name: str, value: Any) -> Any:
    """One output tensor as JSON-ready nested lists (see the module docstring)."""
    array = to_numpy(value)
    kind = array.dtype.kind
    if kind == "f":
        if array.dtype.itemsize <= 4:
            array = float32_for_json(array.astype(np.float32, copy=False))
        return array.tolist()
    if kind in "iub":
        return array.tolist()
    if kind in "OSU":
        as_bytes = name.endswith("_bytes")
        flat = [_string_leaf(v, as_bytes) for v in array.ravel().tolist()]
        strings = np.empty(len(flat), dtype=object)
        strings[:] = flat
        return strings.reshape(array.shape).tolist()
    raise RequestError(f"output '{name}': cannot write dtype {array.dtype} as JSON", 500)


def row_batch_size(arrays: Mapping[str, np.ndarray]) -> int:
    """The batch size the outputs share (the row format needs one); a RequestError if not."""
    if not arrays:
        raise RequestError("the signature returned no outputs", 500)
    batch = -1
    for n, a in arrays.items():
        if a.ndim == 0:
            raise RequestError(f"output '{n}' is a scalar (no batch dimension); ask for the "
                               "columnar format ('inputs') to get it")
        if batch >= 0 and a.shape[0] != batch:
            raise RequestError(f"output '{n}' has inconsistent batch size {a.shape[0]}, expecting "
                               f"{batch}; ask for the columnar format ('inputs') instead")
        batch = a.shape[0]
    return batch


def outputs_to_row_json(outputs: Mapping[str, Any]) -> dict:
    """The `{"predictions": ...}` body of a row-format (`instances`) request."""
    names = list(outputs)
    arrays = {n: to_numpy(outputs[n]) for n in names}
    row_batch_size(arrays)
    if len(names) == 1:
        return {"predictions": output_to_json(names[0], arrays[names[0]])}
    columns = [output_to_json(n, arrays[n]) for n in names]
    return {"predictions": [dict(zip(names, row)) for row in zip(*columns)]}


def outputs_to_columnar_json(outputs: Mapping[str, Any]) -> dict:
    """The `{"outputs": ...}` body of a columnar-format (`inputs`) request."""
    names = list(outputs)
    if not names:
        raise RequestError("the signature returned no outputs", 500)
    if len(names) == 1:
        return {"outputs": output_to_json(names[0], outputs[names[0]])}
    return {"outputs": {n: output_to_json(n, outputs[n]) for n in names}}
