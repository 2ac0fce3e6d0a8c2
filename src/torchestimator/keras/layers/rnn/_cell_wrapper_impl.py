"""The implementation shared by Keras' RNN cell wrappers (`keras.layers.rnn._cell_wrappers`:
`tf.nn.RNNCellDropoutWrapper`, ...) and TF 1.x's (`compat.v1._rnn_cell_wrappers`:
`tf.compat.v1.nn.rnn_cell.DropoutWrapper`, ...), as in TF 2.15 where both come from Keras'
legacy RNN code: the nest helpers (`flatten`, `pack_as`, `map_structure`), `LSTMStateTuple`,
the dropout state filter (no dropout on an LSTM's memory state) and the device parsing, so the
TF1 and Keras wrappers drop and place the same way. `compat.v1._rnn_cell` re-exports them.
"""

from __future__ import annotations

import collections
import re
from typing import Any

import torch


# ------------------------------------------------------------------------------ structures
def _is_nested(x: Any) -> bool:
    return isinstance(x, (tuple, list))


def flatten(structure: Any) -> list:
    """The leaves of a nest of tuples/lists/namedtuples, in order."""
    if _is_nested(structure):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_as(structure: Any, flat: list) -> Any:
    """`flat` packed into the nest shape of `structure` (inverse of `flatten`)."""
    items = iter(flat)

    def build(s: Any) -> Any:
        if _is_nested(s):
            values = [build(x) for x in s]
            if isinstance(s, tuple) and hasattr(s, "_fields"):
                return type(s)(*values)
            return type(s)(values)
        return next(items)

    return build(structure)


def map_structure(fn: Any, *structures: Any) -> Any:
    """`fn` applied leaf by leaf to nests of the same shape, packed like the first."""
    flats = [flatten(s) for s in structures]
    if any(len(f) != len(flats[0]) for f in flats):
        raise ValueError(f"The two structures don't have the same number of elements: {structures!r}.")
    return pack_as(structures[0], [fn(*leaves) for leaves in zip(*flats)])


_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


class LSTMStateTuple(_LSTMStateTuple):
    """Tuple `(c, h)` of the LSTM cells' state: `c` the memory (cell) state, `h` the hidden
    state (the output)."""

    __slots__ = ()

    @property
    def dtype(self) -> torch.dtype:
        """The dtype of `c` and `h` (TypeError when they differ)."""
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _default_dropout_state_filter_visitor(substate: Any) -> Any:
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)  # no dropout on the memory state
    return True


def _filter_mask(visitor: Any, state: Any) -> list[bool]:
    """One flag per leaf of `state`: whether dropout applies to it (TF1's shallow filter)."""
    decision = visitor(state)
    if isinstance(decision, bool):
        return [decision] * len(flatten(state))
    if _is_nested(state):
        if _is_nested(decision):
            flags = []
            for sub, d in zip(state, decision):
                flags += [d] * len(flatten(sub)) if isinstance(d, bool) else _filter_mask(lambda _s, d=d: d, sub)
            return flags
        return [bool(decision)] * len(flatten(state))
    return [bool(decision)]


def _parse_device(device: Any) -> torch.device:
    if isinstance(device, torch.device):
        return device
    text = str(device).lower()
    match = re.search(r"(?:device:)?(gpu|cpu|cuda):?(\d+)?", text)
    if match is None:
        return torch.device(text)
    kind, index = match.group(1), match.group(2)
    if kind in ("gpu", "cuda"):
        if not torch.cuda.is_available():
            return torch.device("cpu")  # TF1's soft placement
        return torch.device("cuda", int(index or 0))
    return torch.device("cpu")
