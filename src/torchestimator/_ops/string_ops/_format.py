"""tf.strings.format with TF's tensor summaries."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator._ops.string_ops._common import Tensor
from torchestimator._ops.string_ops._text import _pattern


# ---------------------------------------------------------------------------- format
def _scalar_text(value: Any, dtype: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if dtype in (np.float32, np.float16):
        text = f"{value:.6g}"
        return text if np.float32(float(text)) == np.float32(value) else f"{value:.9g}"
    if dtype == np.float64:
        text = f"{value:.15g}"
        return text if float(text) == float(value) else f"{value:.17g}"
    return str(value)


def _summarize(array: np.ndarray, summarize: int, depth: int = 0) -> str:
    if array.ndim == 0:
        return _scalar_text(array.item(), array.dtype.type)
    n = array.shape[0]
    elide = 0 <= summarize and 2 * summarize < n
    head = range(summarize) if elide else range(n)
    tail = range(n - summarize, n) if elide else range(0)
    parts = [_summarize(np.asarray(array[i]), summarize, depth + 1) for i in head]
    if elide:
        parts.append("...")
        parts += [_summarize(np.asarray(array[i]), summarize, depth + 1) for i in tail]
    if array.ndim == 1:
        return "[" + " ".join(parts) + "]"
    joiner = "\n" * (array.ndim - 1) + " " * (depth + 1)
    return "[" + joiner.join(parts) + "]"


def format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
           name: str | None = None) -> np.ndarray:
    """Formats a string template using a list of tensors (TF's `tf.strings.format`): each
    `placeholder` is replaced by a tensor's summary (the first and last `summarize` entries
    of each dimension; -1 shows everything).

    Returns:
        A scalar (0-d) string array.
    """
    if isinstance(inputs, (Tensor, np.ndarray)):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(
            f"format: `inputs` must be a list of tensors (or one tensor), got "
            f"{type(inputs).__name__}."
        )
    pieces = _pattern(template).split(placeholder)
    if builtins.len(pieces) - 1 != builtins.len(inputs):
        raise ValueError(
            f"The template expects {builtins.len(pieces) - 1} tensors, but the inputs only has "
            f"{builtins.len(inputs)}. Please ensure the number of placeholders in template "
            "matches inputs length."
        )
    texts = []
    for value in inputs:
        converted = convert_to_tensor(value)
        if isinstance(converted, Tensor):
            converted = converted.detach().cpu()
            if converted.dtype is torch.bfloat16:
                converted = converted.to(torch.float32)
            converted = converted.numpy()
        texts.append(_summarize(np.asarray(converted), int(summarize)))
    out = pieces[0] + "".join(t + p for t, p in zip(texts, pieces[1:]))
    return np.array(out, dtype=object)
