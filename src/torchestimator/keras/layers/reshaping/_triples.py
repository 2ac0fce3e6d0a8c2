"""Normalizes the 3D `padding` / `cropping` arguments (ZeroPadding3D, Cropping3D)."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.reshaping._padding_args import pair

Triple = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]


def pairs_3d(value: Any, name: str) -> Triple:
    """Returns an int, a tuple of 3 ints or a tuple of 3 pairs as three (before, after) pairs."""
    if isinstance(value, int) and not isinstance(value, bool):
        p = pair(value, name)
        return (p, p, p)
    if hasattr(value, "__len__") and not isinstance(value, str):
        if len(value) != 3:
            raise ValueError(f"`{name}` should have 3 elements. Received: {name}={value!r}.")
        ordinal = ("1st", "2nd", "3rd")
        return tuple(  # type: ignore[return-value]
            pair(v, f"{ordinal[i]} entry of {name}") for i, v in enumerate(value)
        )
    raise ValueError(
        f"`{name}` should be either an int, a tuple of 3 ints (symmetric_dim1_{name}, "
        f"symmetric_dim2_{name}, symmetric_dim3_{name}), or a tuple of 3 tuples of 2 ints "
        f"((left_dim1_{name}, right_dim1_{name}), (left_dim2_{name}, right_dim2_{name}), "
        f"(left_dim3_{name}, right_dim2_{name})). Received: {name}={value!r}."
    )


def spatial_axes(data_format: str) -> tuple[int, int, int]:
    """The axes of the 3 spatial dimensions of a 5D tensor in `data_format`."""
    return (1, 2, 3) if data_format == "channels_last" else (2, 3, 4)
