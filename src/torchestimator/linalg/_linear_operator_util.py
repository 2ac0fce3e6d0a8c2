"""Shared helpers for the `LinearOperator` family (tensor conversion, hints, shapes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import torchestimator
from torchestimator._engine.loop import op_device, to_device


def _te():
    return torchestimator


def _tensor_shape(dims: Any):
    return _te().TensorShape(dims)


def _invalid_argument(message: str) -> Exception:
    return _te().errors.InvalidArgumentError(None, None, message)


def _to_tensor(x: Any, dtype: torch.dtype | None = None, name: str = "x",
               device: torch.device | None = None) -> torch.Tensor:
    """Converts `x` to a torch tensor, as TF's `convert_to_tensor` would: on the device TF's
    ops put tensors on (the GPU when there is one), where the operator's other tensors are.
    A value that is not a tensor yet goes to `device` when given (the device of the tensors it
    meets: an operator's, a factorization's), else to `op_device()`; a tensor stays where it is."""
    if isinstance(x, torch.Tensor):
        return x if dtype is None or x.dtype == dtype else x.to(dtype)
    if isinstance(x, np.ndarray):
        t = torch.from_numpy(np.ascontiguousarray(x))
    else:
        try:
            t = torch.as_tensor(x)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(f"Argument `{name}` could not be converted to a tensor: got {x!r} ({err}).") from err
        if t.dtype == torch.float64 and not isinstance(x, np.generic):
            t = t.to(torch.float32)  # Python floats default to float32 in TF.
        elif t.dtype == torch.int64 and not isinstance(x, np.generic):
            t = t.to(torch.int32)
        elif t.dtype == torch.complex128 and not isinstance(x, np.generic):
            t = t.to(torch.complex64)
    t = t if dtype is None else t.to(dtype)
    device = op_device() if device is None else device
    return t if device is None or t.device == device else to_device(t, device)


def _tensors_device(values: Any, seen: set | None = None) -> torch.device | None:
    """The device of the first tensor among `values` (tensors, lists and tuples of them, and
    operators: their own tensors), or None when there is none."""
    seen = set() if seen is None else seen
    for value in values:
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, torch.Tensor):
            return value.device
        if isinstance(value, (list, tuple)):
            found = _tensors_device(value, seen)
        elif hasattr(value, "_matmul") and hasattr(value, "parameters"):  # a LinearOperator
            found = _tensors_device(vars(value).values(), seen)
        else:
            continue
        if found is not None:
            return found
    return None


def _check_min_rank(t: torch.Tensor, ndims: int, name: str) -> torch.Tensor:
    """Returns `t` after checking that it has at least `ndims` dimensions (TF's message for an
    operator's parameter `name`: the argument, the rank it needs and the tensor received)."""
    if t.ndim < ndims:
        raise ValueError(
            f"Argument {name} must have at least {ndims} dimension{'s' if ndims > 1 else ''}.  Found: {t!r}"
        )
    return t


def _real_diagonal_self_adjoint_hint(diag: torch.Tensor, is_self_adjoint: bool | None) -> bool | None:
    """The `is_self_adjoint` hint of a diagonal operator with diagonal `diag`: True for a real
    diagonal (a ValueError when the caller said False), the caller's hint for a complex one."""
    if diag.is_complex():
        return is_self_adjoint
    if is_self_adjoint is False:
        raise ValueError("A real diagonal operator is always self adjoint.")
    return True


def _check_hints(*checks: tuple[bool, str]) -> None:
    """Raises ValueError with the message of the first `(failed, message)` check that failed
    (an operator's hints that its kind fixes, in TF's order and words)."""
    for failed, message in checks:
        if failed:
            raise ValueError(message)


def _adj(t: torch.Tensor) -> torch.Tensor:
    """Hermitian transpose of the two innermost dimensions."""
    t = t.transpose(-1, -2)
    return t.conj().resolve_conj() if t.is_complex() else t


def _broadcast_batch(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:])


def _matrix_solve_with_broadcast(matrix: torch.Tensor, rhs: torch.Tensor, adjoint: bool = False) -> torch.Tensor:
    matrix, rhs = _broadcast_batch(matrix, rhs)
    if adjoint:
        matrix = _adj(matrix)
    return torch.linalg.solve(matrix, rhs)


def _check_compatible(expected: int | None, actual: int | None, what: str, op_name: str) -> None:
    if expected is not None and actual is not None and int(expected) != int(actual):
        raise ValueError(
            f"{op_name}: Dimensions {expected} and {actual} are not compatible: {what} must have size "
            f"{expected} along the contracted dimension, got {actual}. Reshape the argument to match the operator."
        )


def _eps(dtype: torch.dtype) -> float:
    real = torch.empty((), dtype=dtype, device="meta").real.dtype if dtype.is_complex else dtype
    return float(torch.finfo(real).eps)


def _combined_non_singular_hint(*operators: Any) -> bool | None:
    if any(o.is_non_singular is False for o in operators):
        return False
    return all(o.is_non_singular for o in operators) or None


def _is_square_pair(left: Any, right: Any) -> bool | None:
    if left.is_square and right.is_square:
        return True
    if left.is_square is False or right.is_square is False:
        return False
    if left.range_dimension is not None and right.domain_dimension is not None:
        return left.range_dimension == right.domain_dimension
    return None


# ----------------------------------------------------------------------------- base


_FLOATS = (torch.float16, torch.float32, torch.float64, torch.complex64, torch.complex128)


def _commuting_hint(left: Any, right: Any, attr: str) -> bool | None:
    if getattr(left, attr) and getattr(right, attr):
        return True
    return None


def _set_diag(x: torch.Tensor, new_diag: torch.Tensor) -> torch.Tensor:
    batch = torch.broadcast_shapes(x.shape[:-2], new_diag.shape[:-1])
    out = x.expand(*batch, *x.shape[-2:]).clone()
    torch.diagonal(out, dim1=-2, dim2=-1).copy_(new_diag.expand(*batch, new_diag.shape[-1]))
    return out


def _static_int(value: Any, arg: str) -> int:
    t = value if isinstance(value, torch.Tensor) else np.asarray(value)
    if isinstance(t, torch.Tensor):
        if t.is_floating_point() or t.is_complex():
            raise TypeError(f"Argument {arg} must be integer type.  Found: {value!r}")
        t = t.detach().cpu().numpy()
    if not np.issubdtype(t.dtype, np.integer):
        raise TypeError(f"Argument {arg} must be integer type.  Found: {value!r}")
    if t.ndim != 0:
        raise ValueError(f"Argument {arg} must be a 0-D Tensor.  Found: {value!r}")
    if int(t) < 0:
        raise ValueError(f"Argument {arg} must be non-negative.  Found: {int(t)}")
    return int(t)


def _static_shape(value: Any) -> list[int] | None:
    if value is None:
        return None
    t = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(list(value) if isinstance(value, torch.Size) else value)
    if t.size and not np.issubdtype(t.dtype, np.integer):
        raise TypeError(f"Argument batch_shape must be integer type.  Found: {value!r}")
    if t.ndim != 1:
        raise ValueError(f"Argument batch_shape must be a 1-D Tensor.  Found: {value!r}")
    if np.any(t < 0):
        raise ValueError(f"Argument batch_shape must be non-negative.  Found:{value!r}")
    return [int(v) for v in t]


def _is_blockwise(arg: Any, num_blocks: int) -> bool:
    """TF's `arg_is_blockwise`: a list/tuple with one tensor per block (not a nested Python list)."""
    return (
        isinstance(arg, (list, tuple))
        and len(arg) == num_blocks
        and all(isinstance(a, (torch.Tensor, np.ndarray)) for a in arg)
    )


class _BlockwiseArgsMixin:
    """Lets block operators take and return a list of per-block tensors, as TF's block operators do."""

    def _block_sizes(self, domain: bool) -> list[int]:
        ops = self._diagonal_operators
        return [o.domain_dimension if domain else o.range_dimension for o in ops]

    def _blockwise(self, method, x, adjoint, transposed, vec, in_domain, **kw):
        n = len(self._diagonal_operators)
        if not _is_blockwise(x, n):
            return None
        parts = [_to_tensor(p, name="x", device=self._tensor_device) for p in x]
        axis = -1 if (vec or transposed) else -2
        out = method(torch.cat(parts, dim=axis), adjoint=adjoint, **kw)
        sizes = self._block_sizes(domain=not in_domain)
        return list(torch.split(out, sizes, dim=-1 if vec else -2))

    def matmul(self, x: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str = "matmul") -> Any:
        """Transform [batch] matrix `x` (a tensor or a list of per-block tensors) with left multiplication."""
        res = self._blockwise(super().matmul, x, adjoint, adjoint_arg, False, adjoint, adjoint_arg=adjoint_arg)
        return super().matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg) if res is None else res

    def matvec(self, x: Any, adjoint: bool = False, name: str = "matvec") -> Any:
        """Transform [batch] vector `x` (a tensor or a list of per-block tensors) with left multiplication."""
        res = self._blockwise(super().matvec, x, adjoint, False, True, adjoint)
        return super().matvec(x, adjoint=adjoint) if res is None else res

    def solve(self, rhs: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str = "solve") -> Any:
        """Solve `A X = rhs`; `rhs` may be a tensor or a list of per-block tensors."""
        res = self._blockwise(super().solve, rhs, adjoint, adjoint_arg, False, not adjoint, adjoint_arg=adjoint_arg)
        return super().solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg) if res is None else res

    def solvevec(self, rhs: Any, adjoint: bool = False, name: str = "solve") -> Any:
        """Solve `A x = rhs` for vectors; `rhs` may be a tensor or a list of per-block tensors."""
        res = self._blockwise(super().solvevec, rhs, adjoint, False, True, not adjoint)
        return super().solvevec(rhs, adjoint=adjoint) if res is None else res


def _expand_batch_index(slices: Any, batch_rank: int) -> list:
    """Turns `op[slices]` into one entry per batch dimension (ints and slices; `...` expanded)."""
    slices = list(slices) if isinstance(slices, tuple) else [slices]
    if any(s is None for s in slices):
        raise ValueError("LinearOperator batch slicing does not support `None`/`tf.newaxis`; reshape the parameters instead.")
    if sum(s is Ellipsis for s in slices) > 1:
        raise ValueError(f"At most one `...` is allowed in a LinearOperator slice; got {slices}.")
    if Ellipsis in slices:
        i = slices.index(Ellipsis)
        fill = batch_rank - (len(slices) - 1)
        slices = slices[:i] + [slice(None)] * fill + slices[i + 1 :]
    if len(slices) > batch_rank:
        raise ValueError(
            f"Too many indices for a LinearOperator with batch rank {batch_rank}: got {len(slices)}. Only batch "
            "dimensions can be sliced."
        )
    return slices + [slice(None)] * (batch_rank - len(slices))


def _index_for(idx: list, full_batch: list[int], own_batch: list[int]) -> tuple:
    """Right-aligns `idx` to a parameter's own (possibly broadcast) batch shape."""
    own = []
    offset = len(full_batch) - len(own_batch)
    for d, size in enumerate(own_batch):
        entry = idx[offset + d]
        if size == 1 and full_batch[offset + d] != 1:  # broadcast dimension: keep it
            entry = 0 if isinstance(entry, int) else slice(None)
        own.append(entry)
    return tuple(own)


def _slice_value(value: Any, ndims: Any, idx: list, full_batch: list[int]) -> Any:
    if value is None:
        return None
    if hasattr(value, "batch_shape") and hasattr(value, "_matmul"):
        sub = _index_for(idx, full_batch, value.batch_shape.as_list())
        return value[sub] if sub else value
    if ndims == "ops":
        return [_slice_value(v, "op", idx, full_batch) for v in value]
    if ndims == "ops2":
        return [[_slice_value(v, "op", idx, full_batch) for v in row] for row in value]
    if ndims == "seq1":
        return [_slice_value(v, 1, idx, full_batch) for v in value]
    t = _to_tensor(value)
    sub = _index_for(idx, full_batch, list(t.shape[: t.ndim - ndims]))
    return t[sub + (Ellipsis,)]


def _walk_parameters(value: Any, seen: set) -> list:
    """Tensors and sub-operators reachable from an operator's constructor parameters."""
    found: list = []
    if isinstance(value, torch.Tensor):
        if id(value) not in seen:
            seen.add(id(value))
            found.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            found.extend(_walk_parameters(v, seen))
    elif hasattr(value, "_matmul") and hasattr(value, "parameters"):
        if id(value) not in seen:
            seen.add(id(value))
            found.append(value)
            for v in value.parameters.values():
                found.extend(_walk_parameters(v, seen))
    return found


class _ModuleLikeMixin:
    """The `tf.Module` surface of `LinearOperator`: variables are tensors that require grad."""

    def _reachable(self) -> list:
        seen = {id(self)}
        out: list = []
        for v in self.parameters.values():
            out.extend(_walk_parameters(v, seen))
        return out

    @property
    def trainable_variables(self) -> tuple:
        """Sequence of trainable variables (tensors with `requires_grad`) owned by this operator and its sub-operators."""
        return tuple(t for t in self._reachable() if isinstance(t, torch.Tensor) and t.requires_grad)

    @property
    def variables(self) -> tuple:
        """Sequence of variables owned by this operator and its sub-operators."""
        return self.trainable_variables

    @property
    def non_trainable_variables(self) -> tuple:
        """Sequence of non-trainable variables (always empty: a frozen tensor is a constant here)."""
        return ()

    @property
    def submodules(self) -> tuple:
        """Sequence of all sub-operators (e.g. the factors of a Kronecker product)."""
        return tuple(t for t in self._reachable() if not isinstance(t, torch.Tensor))

    @property
    def name_scope(self) -> Any:
        """A `tf.name_scope` for this operator's name."""

        return torchestimator.name_scope(self.name)

    @classmethod
    def with_name_scope(cls, method: Any) -> Any:
        """Decorator that runs `method` inside the operator's name scope (names are informational here)."""
        return method
