"""`tf.debugging`'s assertions and numeric checks, eagerly: each checks its condition at once
and raises TF's error (`InvalidArgumentError` with the data summarised as TF's eager mode
shows it, `ValueError`/`TypeError` for static rank, shape and dtype checks), or returns None
(`check_numerics` returns its input).

`enable_check_numerics()` checks the output of every torch operation for NaN
and infinity (a torch function mode, so everything runs slower until
`disable_check_numerics()`), raising `InvalidArgumentError` naming the op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from torchestimator import _dtypes
from torchestimator._ops.convert import binary_operands, convert_to_tensor, dtype_name, shapes_error
from torchestimator.errors import InvalidArgumentError

__all__ = [
    "Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal",
    "assert_integer", "assert_less", "assert_less_equal", "assert_near", "assert_negative",
    "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive",
    "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_rank_in",
    "assert_same_float_dtype", "assert_scalar", "assert_shapes", "assert_type", "check_numerics",
    "disable_check_numerics", "disable_traceback_filtering", "enable_check_numerics",
    "enable_traceback_filtering", "get_log_device_placement", "is_numeric_tensor",
    "is_traceback_filtering_enabled", "set_log_device_placement",
]


def _prefix(message: Any) -> str:
    return f"{message}.  " if message else ""


def _tensor(value: Any) -> Any:
    return value if isinstance(value, torch.Tensor) else convert_to_tensor(value)


def _numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _pretty(item: Any, summarize: int) -> str:
    """TF's eager rendering of a data item: a tensor as a list of its first values."""
    if isinstance(item, torch.Tensor) or (isinstance(item, np.ndarray) and item.dtype.kind in "OUS"):
        array = _numpy(item)
        if array.ndim == 0:
            return str(array.item())
        flat = array.reshape(-1)
        shown = [str(v) for v in flat[:summarize]]
        if len(shown) < flat.size:
            shown.append("...")
        return str(shown)
    return str(item)


def _comparison(x: Any, y: Any, op: Callable, opname: str) -> tuple[Any, Any, Any]:
    """(x, y, elementwise result) of a binary check; strings (numpy arrays) compare in numpy."""
    if (isinstance(x, np.ndarray) and x.dtype.kind in "OUS") or isinstance(x, str) or (
            isinstance(y, np.ndarray) and y.dtype.kind in "OUS") or isinstance(y, str):
        xs, ys = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
        try:
            return xs, ys, op(xs, ys)
        except ValueError:
            raise shapes_error(opname, xs.shape, ys.shape) from None
    x, y = binary_operands(x, y, opname)
    if not isinstance(y, torch.Tensor):
        y = torch.as_tensor(y, dtype=x.dtype, device=x.device)
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(x, dtype=y.dtype, device=y.device)
    try:
        return x, y, op(x, y)
    except RuntimeError:
        raise shapes_error(opname, x.shape, y.shape) from None


def _binary_assert(sym: str, opname: str, op: Callable, x: Any, y: Any, data: Any,
                   summarize: Any, message: Any) -> None:
    x, y, test = _comparison(x, y, op, opname)
    if bool(test.all()):
        return
    summarize = 3 if summarize is None else (10**9 if summarize < 0 else int(summarize))
    if data is None:
        data = [f"Condition x {sym} y did not hold."]
        if summarize > 0:
            xn, yn, tn = _numpy(x), _numpy(y), _numpy(test)
            if xn.shape == yn.shape and xn.ndim:
                mask = ~tn.astype(bool)
                indices = np.argwhere(mask)
                count = min(summarize, indices.shape[0])
                data += [f"Indices of first {count} different values:", indices[:count],
                         "Corresponding x values:", xn[mask].reshape(-1)[:count],
                         "Corresponding y values:", yn[mask].reshape(-1)[:count]]
            xf, yf = xn.reshape(-1), yn.reshape(-1)
            x_sum, y_sum = min(xf.size, summarize), min(yf.size, summarize)
            data += [f"First {x_sum} elements of x:", xf[:x_sum],
                     f"First {y_sum} elements of y:", yf[:y_sum]]
    data = list(data)
    if message is not None:
        data = [message] + data
    raise InvalidArgumentError(None, None, "\n".join(_pretty(d, summarize) for d in data))


def assert_equal(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                 name: str | None = None) -> None:
    """Raises InvalidArgumentError unless `x == y` holds element-wise (broadcasting); the error
    lists the first differing indices and values."""
    _binary_assert("==", "assert_equal", lambda a, b: a == b, x, y, None, summarize, message)


def assert_none_equal(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                      name: str | None = None) -> None:
    """Raises InvalidArgumentError unless `x != y` holds element-wise."""
    _binary_assert("!=", "assert_none_equal", lambda a, b: a != b, x, y, None, summarize, message)


def assert_greater(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                   name: str | None = None) -> None:
    """Raises InvalidArgumentError unless `x > y` holds element-wise."""
    _binary_assert(">", "assert_greater", torch.gt, x, y, None, summarize, message)


def assert_greater_equal(x: Any, y: Any, message: str | None = None,
                         summarize: int | None = None, name: str | None = None) -> None:
    """Raises InvalidArgumentError unless `x >= y` holds element-wise."""
    _binary_assert(">=", "assert_greater_equal", torch.ge, x, y, None, summarize, message)


def assert_less(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                name: str | None = None) -> None:
    """Raises InvalidArgumentError unless `x < y` holds element-wise."""
    _binary_assert("<", "assert_less", torch.lt, x, y, None, summarize, message)


def assert_less_equal(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                      name: str | None = None) -> None:
    """Raises InvalidArgumentError unless `x <= y` holds element-wise."""
    _binary_assert("<=", "assert_less_equal", torch.le, x, y, None, summarize, message)


def _sign_assert(x: Any, sym: str, opname: str, op: Callable, message: Any, summarize: Any,
                 data: Any = None) -> None:
    """`x sym 0` element-wise, else InvalidArgumentError listing `data` (TF1's argument; by
    default the message, the condition and `x`)."""
    x = _tensor(x)
    zero = torch.zeros((), dtype=x.dtype, device=x.device)
    if data is None:
        data = [_prefix(message), f"Condition x {sym} 0 did not hold element-wise:",
                f"x (shape={tuple(x.shape)} dtype={dtype_name(x.dtype)}) = ", x]
    _binary_assert(sym, opname, op, x, zero, data, summarize, None)


def assert_positive(x: Any, message: str | None = None, summarize: int | None = None,
                    name: str | None = None) -> None:
    """Raises InvalidArgumentError unless every element of `x` is > 0."""
    _sign_assert(x, ">", "assert_positive", torch.gt, message, summarize)


def assert_non_negative(x: Any, message: str | None = None, summarize: int | None = None,
                        name: str | None = None) -> None:
    """Raises InvalidArgumentError unless every element of `x` is >= 0."""
    _sign_assert(x, ">=", "assert_non_negative", torch.ge, message, summarize)


def assert_negative(x: Any, message: str | None = None, summarize: int | None = None,
                    name: str | None = None) -> None:
    """Raises InvalidArgumentError unless every element of `x` is < 0."""
    _sign_assert(x, "<", "assert_negative", torch.lt, message, summarize)


def assert_non_positive(x: Any, message: str | None = None, summarize: int | None = None,
                        name: str | None = None) -> None:
    """Raises InvalidArgumentError unless every element of `x` is <= 0."""
    _sign_assert(x, "<=", "assert_non_positive", torch.le, message, summarize)


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None, message: str | None = None,
                summarize: int | None = None, name: str | None = None) -> None:
    """Raises InvalidArgumentError unless `|x - y| <= atol + rtol * |y|` element-wise; `rtol`
    and `atol` default to 10 * the dtype's machine epsilon."""
    _assert_near(x, y, rtol, atol, None, summarize, message)


def _assert_near(x: Any, y: Any, rtol: Any, atol: Any, data: Any, summarize: Any,
                 message: Any) -> None:
    """`assert_near`, listing `data` (TF1's argument; by default the message, the tolerances,
    `x` and `y`) when it fails."""
    x, y = binary_operands(x, y, "assert_near")
    x, y = _tensor(x), (y if isinstance(y, torch.Tensor) else torch.as_tensor(y, dtype=x.dtype))
    eps = torch.finfo(x.dtype).eps if (x.is_floating_point() or x.is_complex()) else 0.0
    rtol = 10 * eps if rtol is None else float(rtol)
    atol = 10 * eps if atol is None else float(atol)
    try:
        close = (x - y).abs() <= atol + rtol * y.abs()
    except RuntimeError:
        raise shapes_error("assert_near", x.shape, y.shape) from None
    if bool(close.all()):
        return
    if data is not None:
        Assert(torch.tensor(False), data, summarize)
    tol_type = _numpy(x).dtype.type if x.is_floating_point() else np.float32
    data = [_prefix(message),
            f"x and y not equal to tolerance rtol = {str(tol_type(rtol))}, "
            f"atol = {str(tol_type(atol))}",
            f"x (shape={tuple(x.shape)} dtype={dtype_name(x.dtype)}) = ", x,
            f"y (shape={tuple(y.shape)} dtype={dtype_name(y.dtype)}) = ", y]
    Assert(torch.tensor(False), data, summarize)


def _summarize_eager(item: Any, summarize: int) -> str:
    array = _numpy(item)
    if array.ndim == 0:
        return str(array.item()) if summarize != 0 else ""
    flat = array.reshape(-1)
    limit = flat.size if summarize < 0 else summarize
    values = [str(v) for v in flat[:limit]]
    if len(values) < flat.size:
        values.append("...")
    return ", ".join(values)


def Assert(condition: Any, data: Any, summarize: int | None = None,  # noqa: N802 - TF's name
           name: str | None = None) -> None:
    """Raises InvalidArgumentError listing `data` (first `summarize` values of each tensor)
    unless `condition` is true."""
    if bool(condition):
        return None
    summarize = 3 if summarize is None else int(summarize)
    shown = [_summarize_eager(item, summarize) if isinstance(item, (torch.Tensor, np.ndarray))
             else str(item) for item in data]
    if isinstance(condition, torch.Tensor):
        text = (f"tf.Tensor({bool(condition)}, shape={tuple(condition.shape)}, "
                f"dtype={dtype_name(condition.dtype)})")
    else:
        text = str(condition)
    raise InvalidArgumentError(
        None, None, f"Expected '{text}' to be true. Summarized data: " + "\n".join(shown)
    )


def _rank(x: Any) -> tuple[int, tuple]:
    shape = tuple(getattr(x, "shape", np.shape(x)))
    return len(shape), shape


def assert_rank(x: Any, rank: Any, message: str | None = None, name: str | None = None) -> None:
    """Raises ValueError unless `x` has rank `rank`."""
    have, shape = _rank(x)
    if have != int(rank):
        raise ValueError(
            f"{_prefix(message)}Tensor {name or ''} must have rank {int(rank)}.  Received rank "
            f"{have}, shape {shape}"
        )


def assert_rank_at_least(x: Any, rank: Any, message: str | None = None,
                         name: str | None = None) -> None:
    """Raises ValueError unless `x` has rank `rank` or more."""
    have, shape = _rank(x)
    if have < int(rank):
        raise ValueError(
            f"{_prefix(message)}Tensor {name or ''} must have rank at least {int(rank)}.  Received "
            f"rank {have}, shape {shape}"
        )


def assert_rank_in(x: Any, ranks: Any, message: str | None = None, name: str | None = None) -> None:
    """Raises ValueError unless the rank of `x` is one of `ranks`."""
    have, shape = _rank(x)
    ranks = tuple(int(r) for r in ranks)
    if have not in ranks:
        raise ValueError(
            f"{_prefix(message)}Tensor {name or ''} must have rank in {ranks}.  Received rank "
            f"{have}, shape {shape}"
        )


def assert_scalar(tensor: Any, message: str | None = None, name: str | None = None) -> Any:
    """Raises ValueError unless `tensor` is a scalar; returns it."""
    have, shape = _rank(tensor)
    if have != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {shape}.")
    return tensor


def _dtype_of(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.dtype
    array = np.asarray(value)
    return _dtypes.string if array.dtype.kind in "OUS" else _dtypes.as_dtype(array.dtype)


def assert_type(tensor: Any, tf_type: Any, message: str | None = None,
                name: str | None = None) -> None:
    """Raises TypeError unless `tensor` has dtype `tf_type`."""
    want = _dtypes.as_dtype(tf_type)
    have = _dtype_of(tensor)
    if have != want:
        raise TypeError(
            f"{_prefix(message)}{name or 'tensor'} must be of type tf.{dtype_name(want)}; got "
            f"tf.{dtype_name(have)}"
        )


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> None:
    """Raises TypeError unless `x` has an integer dtype."""
    dtype = _dtype_of(x)
    if dtype is _dtypes.string or dtype.is_floating_point or dtype.is_complex or dtype is torch.bool:
        raise TypeError(
            f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor of dtype '
            f"{dtype_name(dtype)}"
        )


def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> Any:
    """Returns the common floating dtype of `tensors` (and `dtype`); ValueError when they differ
    or are not floating."""
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    for t in tensors or []:
        have = _dtype_of(t)
        if want is None:
            want = have
        elif have != want:
            raise ValueError(
                f"Tensor of dtype {dtype_name(have)} must be of the same type "
                f"({dtype_name(want)}) as the others."
            )
    if want is None:
        return torch.float32
    if want is _dtypes.string or not want.is_floating_point:
        raise ValueError(f"Expected floating point type, got {dtype_name(want)}.")
    return want


def assert_proper_iterable(values: Any) -> None:
    """Raises TypeError if `values` is a tensor, an array or a string rather than a Python
    iterable of values."""
    if isinstance(values, (torch.Tensor, np.ndarray, str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )


def assert_shapes(shapes: Any, data: Any = None, summarize: int | None = None,
                  message: str | None = None, name: str | None = None) -> None:
    """Checks that tensors have the shapes given as `[(tensor, ('N', 'D')), ...]` (or a dict):
    ints fix a size, strings name a size that must agree across tensors, `None` or '.' match
    any size, and a leading '...' allows any leading dimensions. Raises ValueError."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes: dict[str, tuple[int, str, int]] = {}
    prefix = _prefix(message)
    for tensor, spec in pairs:
        actual = tuple(getattr(tensor, "shape", np.shape(tensor)))
        desc = f"shape={actual} dtype={dtype_name(_dtype_of(tensor))}"
        spec = [spec] if isinstance(spec, (str, int)) and spec != "..." else list(spec)
        ellipsis = bool(spec) and spec[0] == "..."
        dims = spec[1:] if ellipsis else spec
        if (len(actual) < len(dims)) if ellipsis else (len(actual) != len(dims)):
            need = f"at least {len(dims)}" if ellipsis else str(len(dims))
            raise ValueError(
                f"{prefix}Tensor {desc} must have rank {need}.  Received rank {len(actual)}, "
                f"shape {actual}"
            )
        offset = len(actual) - len(dims)
        for i, want in enumerate(dims):
            axis = offset + i
            have = int(actual[axis])
            if want is None or want == "." or want == "*":
                continue
            if isinstance(want, str):
                first = sizes.get(want)
                if first is None:
                    sizes[want] = (have, desc, axis)
                elif first[0] != have:
                    raise ValueError(
                        f"{prefix}Specified by tensor {first[1]} dimension {first[2]}.  Tensor "
                        f"{desc} dimension {axis} must have size {first[0]}.  Received size "
                        f"{have}, shape {actual}"
                    )
            elif int(want) != have:
                raise ValueError(
                    f"{prefix}Specified explicitly.  Tensor {desc} dimension {axis} must have size "
                    f"{int(want)}.  Received size {have}, shape {actual}"
                )


def _numerics_message(tensor: torch.Tensor, message: str) -> str | None:
    nan = bool(torch.isnan(tensor).any())
    inf = bool(torch.isinf(tensor).any())
    if not (nan or inf):
        return None
    what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
    return f"{message} : Tensor had {what} values"


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Any:
    """Returns `tensor` if it has no NaN or infinity; otherwise raises InvalidArgumentError
    '<message> : Tensor had NaN values' (or Inf, or Inf and NaN). Floating tensors only."""
    tensor = _tensor(tensor)
    if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
        raise InvalidArgumentError(
            None, None,
            f"check_numerics: Value for attr 'T' of {dtype_name(_dtype_of(tensor))} is not in the "
            "list of allowed values: bfloat16, half, float, double",
        )
    text = _numerics_message(tensor, message)
    if text is not None:
        raise InvalidArgumentError(None, None, text)
    return tensor


def assert_all_finite(x: Any, message: str, name: str | None = None) -> Any:
    """Returns `x` if it has no NaN or infinity, else raises InvalidArgumentError (as
    `check_numerics`)."""
    return check_numerics(x, message, name)


def is_numeric_tensor(tensor: Any) -> bool:
    """True for a tensor of a numeric dtype (not bool, not a numpy array or string)."""
    return isinstance(tensor, torch.Tensor) and tensor.dtype is not torch.bool


_SETTINGS = {"log_device_placement": False, "traceback_filtering": True}


def set_log_device_placement(enabled: bool) -> None:
    """Accepted: torch does not log op placement (the setting is remembered)."""
    _SETTINGS["log_device_placement"] = bool(enabled)


def get_log_device_placement() -> bool:
    """The value last given to `set_log_device_placement` (False by default)."""
    return _SETTINGS["log_device_placement"]


def enable_traceback_filtering() -> None:
    """Accepted (tracebacks are never filtered here)."""
    _SETTINGS["traceback_filtering"] = True


def disable_traceback_filtering() -> None:
    """Accepted (tracebacks are never filtered here)."""
    _SETTINGS["traceback_filtering"] = False


def is_traceback_filtering_enabled() -> bool:
    """The value last set with `enable/disable_traceback_filtering` (True by default)."""
    return _SETTINGS["traceback_filtering"]


class _CheckNumericsMode(TorchFunctionMode):
    """Checks each floating output of every torch operation for NaN and infinity."""

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        for index, value in enumerate(outputs):
            if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
                text = _numerics_message(value, "")
                if text is not None:
                    op = getattr(func, "__name__", str(func))
                    raise InvalidArgumentError(
                        None, None,
                        f"\n\n!!! Detected Infinity or NaN in output {index} of eagerly-executing op "
                        f'"{op}" (# of outputs: {len(outputs)}) !!!\n  dtype: '
                        f"{dtype_name(value.dtype)}\n  shape: {tuple(value.shape)}\n",
                    )
        return out


_CHECK_MODE: list[_CheckNumericsMode] = []


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Makes every torch operation check its floating outputs for NaN and infinity (raising
    InvalidArgumentError naming the op) until `disable_check_numerics()`."""
    if _CHECK_MODE:
        return
    mode = _CheckNumericsMode()
    mode.__enter__()
    _CHECK_MODE.append(mode)


def disable_check_numerics() -> None:
    """Stops the checks that `enable_check_numerics()` started."""
    if _CHECK_MODE:
        _CHECK_MODE.pop().__exit__(None, None, None)
