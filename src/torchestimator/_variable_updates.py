"""`tf.Variable`'s sparse updates and reads: `scatter_add`, ..., `scatter_update` (an
`IndexedSlices` of rows), `scatter_nd_add`, ..., `scatter_nd_update` (N-D indices),
`batch_scatter_update`, `sparse_read`, `gather_nd`, `count_up_to`, `ref()`, the assignment of a
slice (`var[2:4].assign(...)`), and TF1's `eval`, `load` and `initialized_value`. Each computes
on the variable's device through the same functions as `tf.compat.v1.scatter_*`
(`_ops.state_ops`) and returns the variable, as TF 2's resource variables do.

`scatter_add` also stays torch's `Tensor.scatter_add(dim, index, src)` when called that way (a
`tf.Variable` is a torch tensor).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._indexed_slices import IndexedSlices
from torchestimator._ops import state_ops
from torchestimator._ops.array_ops._indexing import gather, gather_nd
from torchestimator._tensor_numpy import Reference


def _rows(sparse_delta: Any, op: str) -> tuple[Any, Any]:
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"{op}: sparse_delta must be a tf.IndexedSlices (the rows `indices` and their "
                        f"`values`), got {type(sparse_delta).__name__}.")
    return sparse_delta.indices, sparse_delta.values


class VariableUpdates:
    """The sparse update and read methods of `tf.Variable` (a mixin of `Variable`)."""

    def scatter_add(self, *args: Any, **kwargs: Any) -> Any:
        """Adds `sparse_delta` (a `tf.IndexedSlices`) to the variable's rows
        (`scatter_add(sparse_delta, use_locking=False, name=None)`). Called as torch's
        `scatter_add(dim, index, src)` it is torch's out-of-place scatter.

        Returns:
            The updated variable.
        """
        if (args and isinstance(args[0], IndexedSlices)) or "sparse_delta" in kwargs:
            return _scatter_rows(self, "add", *args, **kwargs)
        return torch.Tensor.scatter_add(self, *args, **kwargs)

    def scatter_sub(self, sparse_delta: IndexedSlices, use_locking: bool = False, name: str | None = None) -> Any:
        """Subtracts `sparse_delta` (a `tf.IndexedSlices`) from the variable's rows.

        Returns:
            The updated variable.
        """
        return _scatter_rows(self, "sub", sparse_delta)

    def scatter_mul(self, sparse_delta: IndexedSlices, use_locking: bool = False, name: str | None = None) -> Any:
        """Multiplies the variable's rows by `sparse_delta` (a `tf.IndexedSlices`).

        Returns:
            The updated variable.
        """
        return _scatter_rows(self, "mul", sparse_delta)

    def scatter_div(self, sparse_delta: IndexedSlices, use_locking: bool = False, name: str | None = None) -> Any:
        """Divides the variable's rows by `sparse_delta` (a `tf.IndexedSlices`).

        Returns:
            The updated variable.
        """
        return _scatter_rows(self, "div", sparse_delta)

    def scatter_max(self, sparse_delta: IndexedSlices, use_locking: bool = False, name: str | None = None) -> Any:
        """Sets the variable's rows to the maximum of themselves and `sparse_delta`.

        Returns:
            The updated variable.
        """
        return _scatter_rows(self, "max", sparse_delta)

    def scatter_min(self, sparse_delta: IndexedSlices, use_locking: bool = False, name: str | None = None) -> Any:
        """Sets the variable's rows to the minimum of themselves and `sparse_delta`.

        Returns:
            The updated variable.
        """
        return _scatter_rows(self, "min", sparse_delta)

    def scatter_update(self, sparse_delta: IndexedSlices, use_locking: bool = False,
                       name: str | None = None) -> Any:
        """Assigns `sparse_delta` (a `tf.IndexedSlices`) to the variable's rows.

        Returns:
            The updated variable.
        """
        return _scatter_rows(self, "update", sparse_delta)

    def batch_scatter_update(self, sparse_delta: IndexedSlices, use_locking: bool = False,
                             name: str | None = None) -> Any:
        """Assigns `sparse_delta.values` at `sparse_delta.indices` within each batch of the variable
        (`var[i..., indices[i..., j]] = values[i..., j]`).

        Returns:
            The updated variable.
        """
        indices, values = _rows(sparse_delta, "batch_scatter_update")
        return state_ops.batch_scatter_update(self, indices, values)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Adds `updates` at the N-D `indices` of the variable.

        Returns:
            The updated variable.
        """
        return state_ops.scatter_nd_add(self, indices, updates)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Subtracts `updates` at the N-D `indices` of the variable.

        Returns:
            The updated variable.
        """
        return state_ops.scatter_nd_sub(self, indices, updates)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Assigns `updates` at the N-D `indices` of the variable.

        Returns:
            The updated variable.
        """
        return state_ops.scatter_nd_update(self, indices, updates)

    def scatter_nd_max(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Sets the entries at the N-D `indices` to the maximum of themselves and `updates`.

        Returns:
            The updated variable.
        """
        return state_ops.scatter_nd_max(self, indices, updates)

    def scatter_nd_min(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Sets the entries at the N-D `indices` to the minimum of themselves and `updates`.

        Returns:
            The updated variable.
        """
        return state_ops.scatter_nd_min(self, indices, updates)

    def sparse_read(self, indices: Any, name: str | None = None) -> torch.Tensor:
        """Reads the rows `indices` of the variable (`tf.gather(var, indices)`).

        Returns:
            A tensor of shape `indices.shape + var.shape[1:]`.
        """
        return gather(self.value(), indices)

    def gather_nd(self, indices: Any, name: str | None = None) -> torch.Tensor:
        """Reads the variable's slices at the N-D `indices` (`tf.gather_nd(var, indices)`).

        Returns:
            A tensor of shape `indices.shape[:-1] + var.shape[indices.shape[-1]:]`.
        """
        return gather_nd(self.value(), indices)

    def count_up_to(self, limit: int) -> torch.Tensor:
        """Increments the integer variable until it reaches `limit`.

        Returns:
            The value before the increment. Raises `tf.errors.OutOfRangeError` at `limit`.
        """
        return state_ops.count_up_to(self, limit)

    def __getitem__(self, key: Any) -> torch.Tensor:
        """The slice `key` of the variable (torch's indexing), with TF's `assign`, `assign_add`
        and `assign_sub` of the slice: `var[2:4].assign(values)` writes into the variable."""
        out = torch.Tensor.__getitem__(self, key)
        out.assign = _SliceAssigner(self, key, "assign")
        out.assign_add = _SliceAssigner(self, key, "assign_add")
        out.assign_sub = _SliceAssigner(self, key, "assign_sub")
        return out

    def eval(self, session: Any = None) -> Any:
        """The variable's value as a numpy array (TF1's `Variable.eval()`; `session` is not
        needed: the value is read at once)."""
        return self.numpy()

    def load(self, value: Any, session: Any = None) -> None:
        """Assigns `value` to the variable (TF1's `Variable.load`; `session` is not needed)."""
        self.assign(value)

    def initialized_value(self) -> torch.Tensor:
        """The variable's value (TF1's `initialized_value()`: a variable here holds its initial
        value from its creation on)."""
        return self.read_value()

    def ref(self) -> VariableReference:
        """A hashable reference to this variable (TF's `Variable.ref()`: a key for sets and
        dicts); `.deref()` gives the variable back."""
        return VariableReference(self)

    def experimental_ref(self) -> VariableReference:
        """The same as `ref()` (TF's earlier name)."""
        return self.ref()


def _scatter_rows(variable: Any, kind: str, sparse_delta: Any = None, use_locking: bool = False,
                  name: str | None = None) -> Any:
    indices, values = _rows(sparse_delta, f"scatter_{kind}")
    return getattr(state_ops, f"scatter_{kind}")(variable, indices, values)


class _SliceAssigner:
    """`assign` / `assign_add` / `assign_sub` of a variable's slice (`var[key].assign(value)`):
    writes the slice of the variable in place and returns the variable."""

    __slots__ = ("_variable", "_key", "_how")

    def __init__(self, variable: Any, key: Any, how: str) -> None:
        self._variable, self._key, self._how = variable, key, how

    def __call__(self, value: Any, use_locking: bool = False, name: Any = None, read_value: bool = True) -> Any:
        variable = self._variable
        value = variable._coerce(value, f"slice {self._how}")
        with torch.no_grad():
            target = torch.Tensor.__getitem__(variable, self._key)
            if isinstance(value, torch.Tensor):
                try:
                    torch.broadcast_shapes(value.shape, target.shape)
                except RuntimeError:
                    raise ValueError(
                        f"{self._how} to a slice of variable {variable.name}: a value of shape "
                        f"{list(value.shape)} does not fit the slice's shape {list(target.shape)}.") from None
            if self._how == "assign":
                target.copy_(value) if isinstance(value, torch.Tensor) else target.fill_(value)
            elif self._how == "assign_add":
                target.add_(value)
            else:
                target.sub_(value)
        return variable


#: What `Variable.ref()` returns: the `Reference` a tensor's `ref()` returns too (TF's one class).
VariableReference = Reference
