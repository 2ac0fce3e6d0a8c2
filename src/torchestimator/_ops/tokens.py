"""`Tokens`: the type of a string split into a data-dependent number of tokens.

`tf.strings.split` of a scalar string gives a 1-D string tensor whose length depends on the
data (TF's static shape `(None,)`). Here it is a 1-D object array of str of this explicit
type, so `tf.data` (`data/structure.py`) can give a mapped element the spec `(None,)` as TF
does. Light on purpose: `data` imports it without the string ops (and PyArrow).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Tokens(np.ndarray):
    """The tokens of one string: a 1-D object array of str whose length varies with the data.
    It behaves as a plain array (ufunc results are plain arrays)."""

    def __array_wrap__(self, obj: Any, context: Any = None, return_scalar: bool = False) -> Any:
        arr = np.asarray(obj)
        return arr[()] if return_scalar else arr


def tokens(values: list) -> np.ndarray:
    """Returns `values` (strings) as a `Tokens` array."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.view(Tokens)
