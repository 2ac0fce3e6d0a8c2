"""`InputSpec`: what a layer accepts (ndim, axes sizes, shape), checked on every call."""

from __future__ import annotations

from typing import Any


class InputSpec:
    """Specifies the rank, dtype and shape of every input to a layer, as Keras' `InputSpec`.

    `axes` maps an axis index (may be negative) to its required size.

    `_fast` caches the cheap check `Layer.__call__`'s fast path runs (see
    `layer_utils._fast_spec`). It assumes the spec changes only by attribute assignment
    (`spec.axes = {...}`, as Keras code does), which resets it here; an `axes` dict edited
    in place is not seen -- assign a new dict.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name != "_fast":
            object.__setattr__(self, "_fast", None)  # None: recomputed on the next call

    def __init__(
        self,
        dtype: Any = None,
        shape: tuple | None = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: dict | None = None,
        allow_last_axis_squeeze: bool = False,
        name: str | None = None,
    ):
        self.dtype = dtype
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name

    def get_config(self) -> dict:
        """Returns the spec's arguments as a dict."""
        return {
            "dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
            "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes,
        }

    @classmethod
    def from_config(cls, config: dict) -> InputSpec:
        """Creates an `InputSpec` from `get_config()`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        parts = [f"{k}={v}" for k, v in self.get_config().items() if v]
        return f"InputSpec({', '.join(parts)})"


def _fmt(shape: tuple) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def assert_input_compatibility(specs: Any, inputs: list, layer_name: str) -> None:
    """Raises ValueError if `inputs` (tensors or KerasTensors) do not match `specs`.

    The message names the layer, the expected property and the received shape,
    in Keras' words: `Input 0 of layer "dense" is incompatible with the layer: ...`.
    """
    if not isinstance(specs, (list, tuple)):
        specs = [specs]
    if len(specs) > 1 and len(inputs) != len(specs):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(inputs)} input tensors."
        )
    for i, (spec, x) in enumerate(zip(specs, inputs)):
        if spec is None:
            continue
        shape = tuple(getattr(x, "shape", ()))
        prefix = f'Input {i} of layer "{layer_name}" is incompatible with the layer: '
        rank = len(shape)
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
            raise ValueError(
                f"{prefix}expected ndim={spec.ndim}, found ndim={rank}. "
                f"Full shape received: {_fmt(shape)}"
            )
        if spec.max_ndim is not None and rank > spec.max_ndim:
            raise ValueError(
                f"{prefix}expected max_ndim={spec.max_ndim}, found ndim={rank}. "
                f"Full shape received: {_fmt(shape)}"
            )
        if spec.min_ndim is not None and rank < spec.min_ndim:
            raise ValueError(
                f"{prefix}expected min_ndim={spec.min_ndim}, found ndim={rank}. "
                f"Full shape received: {_fmt(shape)}"
            )
        for axis, value in spec.axes.items():
            if value is None:
                continue
            if -rank <= axis < rank:
                got = shape[axis]
                if got is not None and got != value:
                    raise ValueError(
                        f"{prefix}expected axis {axis} of input shape to have value {value}, "
                        f"but received input with shape {_fmt(shape)}"
                    )
        if spec.shape is not None and rank == len(spec.shape):
            for want, got in zip(spec.shape, shape):
                if want is not None and got is not None and want != got:
                    raise ValueError(
                        f"{prefix}expected shape={_fmt(spec.shape)}, found shape={_fmt(shape)}"
                    )
