"""`LazyPredictions`: the predictions of a TRAIN or EVAL spec, computed when first read.

In TF a head's TRAIN and EVAL specs carry prediction tensors that the graph
computes only when something fetches them (a hook, `SessionRunArgs`). Here a
head returns this dict instead: the probabilities, class ids and the rest are
computed on the first access, and a training step whose hooks never read
them does not pay for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


class LazyPredictions(dict):
    """A dict of predictions filled by `compute()` on first use (any read of keys or values).

    Args:
        compute: returns the dict of predictions; called at most once.
    """

    __slots__ = ("_compute",)

    def __init__(self, compute: Callable[[], dict]):
        super().__init__()
        self._compute: Callable[[], dict] | None = compute

    def _filled(self) -> LazyPredictions:
        compute = self._compute
        if compute is not None:
            self._compute = None
            dict.update(self, compute())
        return self

    def __getitem__(self, key: str) -> Any:
        return dict.__getitem__(self._filled(), key)

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self._filled())

    def __len__(self) -> int:
        return dict.__len__(self._filled())

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self._filled(), key)

    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self._filled(), other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return dict.__repr__(self._filled())

    def __reduce__(self) -> tuple:
        return (dict, (dict(self.items()),))

    def get(self, key: str, default: Any = None) -> Any:
        """The prediction `key`, or `default`."""
        return dict.get(self._filled(), key, default)

    def keys(self) -> Any:
        """The prediction keys."""
        return dict.keys(self._filled())

    def values(self) -> Any:
        """The prediction tensors."""
        return dict.values(self._filled())

    def items(self) -> Any:
        """(key, tensor) pairs."""
        return dict.items(self._filled())

    def copy(self) -> dict:
        """A plain dict of the predictions."""
        return dict(self.items())

    def pop(self, key: str, *default: Any) -> Any:
        """Removes and returns prediction `key` (or `default`)."""
        return dict.pop(self._filled(), key, *default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """Returns prediction `key`, inserting `default` when missing."""
        return dict.setdefault(self._filled(), key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Adds or replaces predictions."""
        dict.update(self._filled(), *args, **kwargs)

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self._filled(), key, value)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self._filled(), key)

    def __or__(self, other: Any) -> dict:
        return dict(self.items()) | other
