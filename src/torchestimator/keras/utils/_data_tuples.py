"""`pack_x_y_sample_weight` / `unpack_x_y_sample_weight`: the tuple formats `Model.fit` reads."""

from __future__ import annotations

from typing import Any


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """Unpacks user-provided data tuple.

    This is a convenience utility to be used when overriding `Model.train_step`,
    `Model.test_step`, or `Model.predict_step`: it unpacks `x`, `(x,)`, `(x, y)` or
    `(x, y, sample_weight)` (a list counts as a tuple).

    Args:
        data: a tuple of the form `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, or a lone `x`.

    Returns:
        The unpacked tuple `(x, y, sample_weight)`, with `None`s for `y` and `sample_weight`
        if they are not provided.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError(
        "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
        f"found: {data}"
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """Packs user-provided data into a tuple.

    This is a convenience utility for packing data into the tuple formats that `Model.fit`
    uses.

    Args:
        x: features to pass to `Model`.
        y: ground-truth targets to pass to `Model`.
        sample_weight: sample weight for each element.

    Returns:
        `x` itself when `y` is None and `x` is not a tuple (no ambiguity), `(x,)` when `y` is
        None and `x` is a tuple, else `(x, y)` or `(x, y, sample_weight)`.
    """
    if y is None:
        return x if not isinstance(x, tuple) else (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)
