"""`tf.data.experimental.Optional` and `get_next_as_optional`: a value that may be absent,
for reading an iterator without catching the end of the data."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import errors
from torchestimator._type_spec import OptionalSpec, register_value_type
from torchestimator.data.structure import spec_of, to_structure


class Optional:
    """A value that may or may not be present (`tf.experimental.Optional`): `has_value()`,
    `get_value()`, `element_spec`. Make one with `Optional.from_value(v)` or
    `Optional.empty(element_spec)`."""

    __slots__ = ("_value", "_present", "_spec")

    def __init__(self, value: Any = None, present: bool = False, element_spec: Any = None):
        self._value, self._present, self._spec = value, present, element_spec

    @staticmethod
    def from_value(value: Any) -> Optional:
        """An `Optional` holding `value`."""

        return Optional(value, True, spec_of(to_structure(value)))

    @staticmethod
    def empty(element_spec: Any) -> Optional:
        """An `Optional` holding nothing, for values of `element_spec`."""
        return Optional(None, False, element_spec)

    @property
    def element_spec(self) -> Any:
        """The spec of the value this optional holds (or would hold)."""
        return self._spec

    @property
    def _type_spec(self) -> OptionalSpec:
        """The `tf.OptionalSpec` of this optional (what `tf.type_spec_from_value` returns)."""
        return OptionalSpec.from_value(self)

    def has_value(self, name: str | None = None) -> torch.Tensor:
        """True when a value is present (a bool scalar)."""
        return torch.tensor(self._present)

    def get_value(self, name: str | None = None) -> Any:
        """The value; raises `tf.errors.InvalidArgumentError` when there is none."""
        if not self._present:
            raise errors.InvalidArgumentError(None, None, "The optional does not have a value.")
        return self._value

    def __repr__(self) -> str:
        return f"Optional(has_value={self._present}, element_spec={self._spec!r})"


register_value_type(OptionalSpec, Optional)  # OptionalSpec.value_type (defined below data)


def get_next_as_optional(iterator: Any) -> Optional:
    """The iterator's next element as an `Optional`: empty at the end of the data."""
    try:
        return Optional(next(iterator), True, iterator.element_spec)
    except StopIteration:
        return Optional.empty(iterator.element_spec)
