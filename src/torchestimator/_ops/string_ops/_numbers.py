"""tf.strings.to_number and tf.strings.as_string with TF's parsing and formatting."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator._ops.string_ops._common import (
    _ASCII_WS,
    Tensor,
    _arrow,
    _ragged,
    _strings,
    _tensor,
)
from torchestimator._ops.string_ops._split import _sep
from torchestimator.errors import InvalidArgumentError

# ---------------------------------------------------------------------------- numbers
_FLOAT_RE = (r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|0[xX][0-9a-fA-F]+"
             r"|(?i:inf|nan))")
_INT_RE = r"-?[0-9]+"
_NUMBER_TYPES = {torch.float32: "float", torch.float64: "double", torch.int32: "int32",
                 torch.int64: "int64"}


def _number_error(text: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        None, None, f"StringToNumberOp could not correctly convert string: {text}"
    )


@_ragged
def to_number(input: Any, out_type: Any = torch.float32, name: str | None = None) -> Tensor:
    """Converts each string of `input` to a number of `out_type` (float32, float64, int32 or
    int64) (TF's `tf.strings.to_number`). Leading and trailing whitespace is ignored; floats
    accept decimal and exponent forms, hexadecimal integers ("0x1A"), "inf" and "nan";
    integers accept decimal digits with an optional "-" and must fit `out_type`.

    Returns:
        A tensor of `out_type` and the input's shape. A string that is not a number raises
        `InvalidArgumentError` ("StringToNumberOp could not correctly convert string: ...").
    """
    want = _dtypes.as_dtype(out_type)
    if want not in _NUMBER_TYPES:
        raise InvalidArgumentError(
            None, None, f"to_number: Value for attr 'out_type' of {dtype_name(want)} is not in "
            "the list of allowed values: float, double, int32, int64"
        )
    array = _strings(input, "to_number")
    if array.size == 0:
        return torch.zeros(array.shape, dtype=want)
    raw = _arrow(array)
    text = pc.utf8_trim(raw, characters=_ASCII_WS)
    floating = want.is_floating_point
    ok = pc.match_substring_regex(text, pattern=f"^(?:{_FLOAT_RE if floating else _INT_RE})$")
    ok = ok.to_numpy(zero_copy_only=False)
    if floating:  # TF reads a string of only whitespace as 0, but not the empty string
        blank = pc.equal(pc.binary_length(text), 0).to_numpy(zero_copy_only=False)
        ok = ok | (blank & (pc.binary_length(raw).to_numpy(zero_copy_only=False) > 0))
    if not ok.all():
        raise _number_error(array.reshape(-1)[int(np.argmin(ok))])
    if floating:
        is_hex = pc.match_substring_regex(text, pattern="^[+-]?0[xX]").to_numpy(
            zero_copy_only=False)
        filled = pc.if_else(pc.equal(pc.binary_length(text), 0), "0", text)
        if is_hex.any():
            filled = pc.if_else(pa.array(is_hex), "0", filled)
        values = pc.cast(filled, pa.float32() if want is torch.float32 else pa.float64())
        values = values.to_numpy(zero_copy_only=False).copy()
        if is_hex.any():
            flat = np.asarray(text.to_pylist(), dtype=object)
            values[is_hex] = [float(int(s, 16)) for s in flat[is_hex]]
        return _tensor(values.reshape(array.shape), want)
    try:
        values = pc.cast(text, pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, OverflowError):
        flat = text.to_pylist()
        bad = next(s for s in flat if not -(2**63) <= int(s) < 2**63)
        raise _number_error(bad) from None
    if want is torch.int32:
        over = (values < -(2**31)) | (values >= 2**31)
        if over.any():
            raise _number_error(array.reshape(-1)[int(np.argmax(over))].strip(_ASCII_WS))
    return _tensor(values.reshape(array.shape), want)


_FILLS = (" ", "+", "-", "0", "#")


def as_string(input: Any, precision: int = -1, scientific: bool = False,
              shortest: bool = False, width: int = -1, fill: str = "",
              name: str | None = None) -> np.ndarray:
    """Converts each entry of `input` to a string with C's printf rules (TF's
    `tf.strings.as_string`): integers "%d", floats "%f" ("%e" with `scientific`, "%g" with
    `shortest`, `precision` digits), `width` and a `fill` flag (' ', '+', '-', '0' or '#');
    bools become "true"/"false".

    Returns:
        A string array of the input's shape.
    """
    value = convert_to_tensor(input) if not isinstance(input, np.ndarray) or \
        input.dtype.kind not in "OUS" else _strings(input, "as_string")
    fill = _sep(fill)
    if builtins.len(fill) > 1:
        raise InvalidArgumentError(None, None, "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise InvalidArgumentError(None, None, "Cannot select both scientific and shortest "
                                               "notation")
    if fill and fill not in _FILLS:
        raise InvalidArgumentError(None, None, f'Fill argument not supported: "{fill}"')
    spec = "%" + fill + (str(int(width)) if width > -1 else "")
    if isinstance(value, np.ndarray):  # strings are formatted with "%s"
        array = _strings(value, "as_string")
        return np.frompyfunc((spec + "s").__mod__, 1, 1)(array).astype(object).reshape(
            array.shape)
    dtype = value.dtype
    array = value.detach().cpu()
    if dtype is torch.bool:
        out = np.where(array.numpy(), "true", "false").astype(object)
        return out.reshape(tuple(array.shape))
    floating = dtype.is_floating_point or dtype.is_complex
    if not floating:
        if precision > -1:
            raise InvalidArgumentError(
                None, None, f"precision not supported for datatype {dtype_name(dtype)}"
            )
        if scientific or shortest:
            raise InvalidArgumentError(
                None, None, f"scientific and shortest format not supported for datatype "
                f"{dtype_name(dtype)}"
            )
        fmt = spec + "d"
    else:
        fmt = spec + (f".{int(precision)}" if precision > -1 else "") + \
            ("g" if shortest else "e" if scientific else "f")
    if dtype is torch.bfloat16:
        array = array.to(torch.float32)
    numbers = array.numpy()
    if isinstance(input, (np.ndarray, np.generic)):
        numbers = numbers.reshape(np.shape(input))  # a numpy scalar stays a scalar
    if dtype.is_complex:
        pair = "(" + fmt + "," + fmt + ")"
        out = np.frompyfunc(lambda z: pair % (z.real, z.imag), 1, 1)(numbers.astype(object))
    else:
        out = np.frompyfunc(fmt.__mod__, 1, 1)(numbers.astype(object))
        out = np.asarray(out, dtype=object)
        if floating and fill == "0" and not np.isfinite(numbers).all():
            # C's printf ignores the '0' flag for inf and nan (it pads with spaces)
            plain = fmt.replace("%0", "%", 1)
            special = ~np.isfinite(numbers)
            out[special] = np.frompyfunc(plain.__mod__, 1, 1)(numbers[special].astype(object))
    return np.asarray(out, dtype=object).reshape(numbers.shape)
