"""tf.print and the tensor formatting it shares with TF (summarize, float digits, C escapes)."""

from __future__ import annotations

import builtins
import math
import os
import pprint
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes

# ============================================================================ tf.print
_FLOAT_DIGITS = {torch.float64: (15, 17)}


def _format_float(value: float, digits: tuple[int, int], single: bool) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    short = f"{value:.{digits[0]}g}"
    same = np.float32(float(short)) == np.float32(value) if single else float(short) == value
    return short if same else f"{value:.{digits[1]}g}"


def _element_formatter(dtype: Any) -> Callable[[Any], str]:
    if dtype is _dtypes.string:
        return lambda v: '"' + _c_escape(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)) + '"'
    if dtype is torch.bool:
        return lambda v: "1" if v else "0"
    if dtype.is_floating_point:
        digits = _FLOAT_DIGITS.get(dtype, (6, 9))
        single = dtype is not torch.float64
        return lambda v: _format_float(float(v), digits, single)
    if dtype.is_complex:
        return lambda v: f"({v.real:g},{v.imag:g})"
    return lambda v: str(int(v))


def _c_escape(text: str) -> str:
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'")
            .replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"))


def _dim_spacing(dim: int, rank: int) -> str:
    if dim == rank - 1:
        return " "
    return "\n" * (rank - dim - 1) + " " * (dim + 1)


def format_tensor(value: Any, summarize: int = 3) -> str:
    """A tensor's values as TF's `tf.print` shows them: `[1 2 3]`, nested brackets per dimension,
    and with more than 2*summarize entries in a dimension only the first and last `summarize`
    of them around `...` (summarize=-1: everything)."""
    if isinstance(value, torch.Tensor):
        dtype = value.dtype
        tensor = value.detach().cpu()
        if dtype in (torch.float16, torch.bfloat16):
            tensor = tensor.float()
        array = tensor.resolve_conj().numpy() if not dtype.is_complex else tensor.numpy()
    else:
        array = np.asarray(value)
        dtype = _dtypes.string if array.dtype.kind in "OUS" else _dtypes.as_dtype(array.dtype)
    fmt = _element_formatter(dtype)
    total = array.size
    limit = total if summarize is None or summarize < 0 else builtins.min(summarize, total)
    if array.ndim == 0:
        return (fmt(array.item()) if limit else "") + ("..." if total > limit else "")
    shape = array.shape
    rank = array.ndim
    flat = array.reshape(-1)
    parts: list[str] = []

    def one_dim(dim: int, offset: int) -> None:
        if dim == rank:
            parts.append(fmt(flat[offset]))
            return
        parts.append("[")
        count = shape[dim]
        step = int(np.prod(shape[dim + 1:], dtype=np.int64))
        start_of_end = builtins.max(limit, count - limit)
        for i in range(builtins.min(limit, count)):
            if i > 0:
                parts.append(_dim_spacing(dim, rank))
            one_dim(dim + 1, offset + step * i)
        if count > 2 * limit:
            parts.append(_dim_spacing(dim, rank))
            parts.append("...")
        for i in range(start_of_end, count):
            parts.append(_dim_spacing(dim, rank))
            one_dim(dim + 1, offset + step * i)
        parts.append("]")

    one_dim(0, 0)
    return "".join(parts)


def _is_printed_tensor(value: Any) -> bool:
    return isinstance(value, torch.Tensor) or (
        isinstance(value, np.ndarray) and value.dtype.kind in "OUS")


def _replace_tensors(value: Any, placeholder: str, found: list) -> Any:
    if _is_printed_tensor(value):
        found.append(value)
        return placeholder
    if isinstance(value, dict):
        return {k: _replace_tensors(value[k], placeholder, found) for k in sorted(value, key=_sort_key)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_replace_tensors(v, placeholder, found) for v in value))
    if isinstance(value, (list, tuple)):
        items = [_replace_tensors(v, placeholder, found) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def _sort_key(key: Any) -> Any:
    return (str(type(key)), key) if not isinstance(key, (int, float, str)) else (0, key)


def print(*inputs: Any, **kwargs: Any) -> None:  # noqa: A001 - TF's name
    """Prints `inputs` as TF's `tf.print(*inputs, output_stream=sys.stderr, summarize=3,
    sep=' ', end='\\n', name=None)`.

    Tensors (and string arrays) print their values as TF does (`[1 2 3]`, floats
    with the digits that round-trip, long dimensions summarized around `...`);
    strings print as they are; other values and structures print as Python
    shows them, with the tensors inside them formatted. `output_stream` is
    `sys.stdout`, `sys.stderr`, any object with `write`, a logging function
    (`logging.info`, ...) or `'file://<path>'` (appended to).
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    if summarize is None:
        summarize = 3
    placeholder = "{__tf_print_placeholder__}"
    found: list = []
    templates = []
    for value in inputs:
        if isinstance(value, str):
            templates.append(value)
            continue
        structure = _replace_tensors(value, placeholder, found)
        template = pprint.pformat(structure)
        templates.append(template.replace(repr(placeholder), placeholder))
    pieces = sep.join(templates).split(placeholder)
    text = pieces[0]
    for tensor, piece in zip(found, pieces[1:]):
        text += format_tensor(tensor, summarize) + piece
    _write(output_stream, text, end)


def _write(stream: Any, text: str, end: str) -> None:
    if isinstance(stream, str):
        if not stream.startswith("file://"):
            raise ValueError(
                f"tf.print: unsupported output_stream {stream!r}: use sys.stdout, sys.stderr, a "
                "logging function or 'file://<path>'."
            )
        with open(stream[len("file://"):], "a", encoding="utf-8") as handle:
            handle.write(text + end)
        return
    if hasattr(stream, "write"):
        stream.write(text + end)
        flush = getattr(stream, "flush", None)
        if flush is not None:
            flush()
        return
    if callable(stream):
        stream(text)
        return
    raise ValueError(f"tf.print: unsupported output_stream {stream!r}.")
