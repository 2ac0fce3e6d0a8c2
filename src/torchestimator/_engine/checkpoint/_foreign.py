"""Foreign checkpoint formats: checkpoints this package reads but did not write (TensorFlow's
own tensor bundle, `<prefix>.index` + `<prefix>.data-K-of-N`).

The readers of such formats live above `_engine` (`_tf_formats`), so `_engine.checkpoint` does
not import them: each registers itself here with `register_foreign_format` when its module
loads (`_tf_formats/engine_hooks.py` registers TensorFlow's format; `_tf_formats/__init__.py`
imports it, so any front that reads checkpoints -- `tf.train`, the Estimator, Keras saving,
`compat.v1`, the CLI -- has it registered). `_format`, `_index` and `_reading` then ask
`foreign_format(prefix, ...)` whether a prefix is one of them and, if so, read it through the
format's methods, which give the same answers as for our own format.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import torch


class ForeignCheckpointFormat(Protocol):
    """What a foreign checkpoint format provides to `_engine.checkpoint`."""

    #: The format's name, as the `format` of the metadata it returns (e.g. "tensorflow").
    name: str

    def owns(self, prefix: str, ours_suffix: str) -> bool:
        """True when `prefix` is a checkpoint in this format and not one of ours (ours have
        the file `prefix + ours_suffix`)."""

    def metadata(self, prefix: str) -> dict[str, Any]:
        """The checkpoint's metadata as ours (`format`, `global_step`, `extra`, `timestamp`)."""

    def load(self, prefix: str) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
        """Every tensor as `{name: torch.Tensor}`, and the metadata."""

    def list_variables(self, prefix: str) -> list[tuple[str, list[int]]]:
        """`(name, shape)` of every tensor, sorted by name."""

    def load_variable(self, prefix: str, name: str) -> np.ndarray:
        """The value of tensor `name`."""

    def scan(self, directory: str, names: list[str], basename: str | None,
             ours: set[str]) -> list[tuple[int, str]]:
        """`(step, prefix)` of this format's checkpoints among the file `names` of local
        `directory` (of series `basename` when not None), leaving out the prefixes in `ours`."""


_FORMATS: dict[str, ForeignCheckpointFormat] = {}


def register_foreign_format(fmt: ForeignCheckpointFormat) -> None:
    """Registers `fmt` (replacing a format of the same name: a reloaded module registers again)."""
    _FORMATS[fmt.name] = fmt


def foreign_format(prefix: str, ours_suffix: str) -> ForeignCheckpointFormat | None:
    """The registered format that checkpoint `prefix` is in, or None (ours, or no checkpoint)."""
    for fmt in _FORMATS.values():
        if fmt.owns(prefix, ours_suffix):
            return fmt
    return None


def scan_foreign(directory: str, names: list[str], basename: str | None,
                 ours: set[str]) -> list[tuple[int, str]]:
    """`(step, prefix)` of the checkpoints of every registered format among `names` in local
    `directory` (see `ForeignCheckpointFormat.scan`)."""
    found: list[tuple[int, str]] = []
    for fmt in _FORMATS.values():
        found += fmt.scan(directory, names, basename, ours | {p for _, p in found})
    return found
