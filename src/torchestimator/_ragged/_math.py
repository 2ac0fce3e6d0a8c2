"""Elementwise math on a `tf.RaggedTensor`: operators mapped over its flat values."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from torchestimator._ragged._tensor import RaggedTensor

class RaggedMath:
    """The operators of `RaggedTensor` (a mixin): `+ - * / // % **`, comparisons, `& | ~`,
    `-x`, `abs(x)` with a scalar or a RaggedTensor of the same row_splits."""

    __slots__ = ()
    def _map(self, fn: Callable[[Any], Any]) -> RaggedTensor:
        return self.with_flat_values(fn(self.flat_values))

    def _binary(self, other: Any, op: Callable, reverse: bool = False) -> RaggedTensor:
        if isinstance(other, RaggedMath):
            mine, theirs = self.nested_row_splits, other.nested_row_splits
            if len(mine) != len(theirs) or any(
                    a.shape != b.shape or not torch.equal(a.to(torch.int64), b.to(torch.int64))
                    for a, b in zip(mine, theirs)):
                raise ValueError(
                    "RaggedTensor arithmetic needs both operands to have the same row_splits; "
                    f"received {[s.tolist() for s in mine]} and {[s.tolist() for s in theirs]}")
            b = other.flat_values
        else:
            b = other
            if not isinstance(b, torch.Tensor):
                b = torch.as_tensor(b)
            if b.ndim > 0 and b.numel() != 1:
                raise ValueError("RaggedTensor arithmetic with a dense tensor supports scalars "
                                 f"only here; received a tensor of shape {list(b.shape)}. Use "
                                 "tf.ragged.map_flat_values or to_tensor() first")
            b = b.reshape(()).to(self.flat_values.device)
            if not b.dtype.is_floating_point and self.dtype.is_floating_point:
                b = b.to(self.dtype)
            elif b.dtype != self.dtype and not (b.dtype.is_floating_point
                                                 and not self.dtype.is_floating_point):
                b = b.to(self.dtype)
        a = self.flat_values
        return self.with_flat_values(op(b, a) if reverse else op(a, b))

    def __add__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.add)

    def __radd__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.add, True)

    def __sub__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.sub)

    def __rsub__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.sub, True)

    def __mul__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.mul)

    def __rmul__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.mul, True)

    def __truediv__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.truediv)

    def __rtruediv__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.truediv, True)

    def __floordiv__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.floordiv)

    def __mod__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.mod)

    def __pow__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.pow)

    def __lt__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.lt)

    def __le__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.le)

    def __gt__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.gt)

    def __ge__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.ge)

    def __and__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.and_)

    def __or__(self, other: Any) -> RaggedTensor:
        return self._binary(other, operator.or_)

    def __neg__(self) -> RaggedTensor:
        return self._map(operator.neg)

    def __abs__(self) -> RaggedTensor:
        return self._map(torch.abs)

    def __invert__(self) -> RaggedTensor:
        return self._map(operator.invert)
