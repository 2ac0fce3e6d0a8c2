"""`tf.RaggedTensor`: a tensor whose rows have different lengths.

TensorFlow's layout: `values` (a torch tensor, a numpy object array for strings, or
another RaggedTensor for more ragged dimensions) partitioned into rows by `row_splits`
(int64 by default, or int32): row `i` is `values[row_splits[i]:row_splits[i + 1]]`.

    rt = tf.RaggedTensor.from_row_splits([1, 2, 3, 4, 5, 6], [0, 2, 3, 3, 6])
    rt.to_list()    # [[1, 2], [3], [], [4, 5, 6]]
    rt.to_tensor()  # [[1, 2, 0], [3, 0, 0], [0, 0, 0], [4, 5, 6]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ragged import _spec
from torchestimator._ragged import _values as V
from torchestimator._ragged._indexing import RaggedIndexing
from torchestimator._ragged._math import RaggedMath
from torchestimator._sparse_tensor import SparseTensor
from torchestimator._tensor_shape import TensorShape
from torchestimator.errors import InvalidArgumentError


class RaggedTensor(RaggedIndexing, RaggedMath):
    """Represents a ragged tensor (TF's `tf.RaggedTensor`).

    Build one with the factory classmethods (`from_row_splits`, `from_row_lengths`,
    `from_value_rowids`, `from_tensor`, ...) or `tf.ragged.constant`. The outermost
    dimension is uniform (`nrows()`); each ragged dimension has shape `None`.
    """

    __slots__ = ("_values", "_row_splits", "_uniform_row_length")

    def __init__(self, values: Any, row_partition: Any, internal: bool = False,
                 uniform_row_length: int | None = None):
        """Private, as TF's: `row_partition` is the row splits tensor (TF's `RowPartition`), and
        `internal=True` is required; use the factory methods."""
        if not internal:
            raise ValueError(
                "RaggedTensor constructor is private; please use one of the factory methods "
                "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_partition
        self._uniform_row_length = uniform_row_length

    # ------------------------------------------------------------------ factories
    @classmethod
    def _make(cls, values: Any, splits: torch.Tensor, fn: str, validate: bool = True,
              name: str = "row_splits", uniform: int | None = None) -> RaggedTensor:
        if not isinstance(values, RaggedTensor):
            values = V.to_flat(values)
            if len(values.shape) == 0:
                raise ValueError(f"{fn}: values must have rank at least 1; received a scalar")
        if validate:
            V.check_splits(splits, V.nrows_of(values), fn, name)
        return cls(values, splits, internal=True, uniform_row_length=uniform)

    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor with rows partitioned by `row_splits`.

        Row `i` is `values[row_splits[i]:row_splits[i + 1]]`. `row_splits` must start
        at 0, ascend, and end at `len(values)` (InvalidArgumentError otherwise).
        """
        splits = V.int_tensor(row_splits, "row_splits", "from_row_splits")
        return cls._make(values, splits, "from_row_splits", validate)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: str | None = None,
                         validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor with rows of the given lengths (`sum(row_lengths) == len(values)`)."""
        lengths = V.int_tensor(row_lengths, "row_lengths", "from_row_lengths")
        if validate and bool((lengths < 0).any()):
            raise InvalidArgumentError(
                "Arguments to from_row_lengths do not form a valid RaggedTensor: row_lengths must "
                f"be non-negative; received row_lengths={lengths.tolist()}")
        splits = torch.cat([torch.zeros(1, dtype=lengths.dtype), torch.cumsum(lengths, 0)])
        rt = cls._make(values, splits.to(lengths.dtype), "from_row_lengths", False)
        if validate and int(splits[-1]) != V.nrows_of(rt._values):
            raise InvalidArgumentError(
                f"Arguments to from_row_lengths do not form a valid RaggedTensor: "
                f"sum(row_lengths) ({int(splits[-1])}) must equal the number of values "
                f"({V.nrows_of(rt._values)}); received row_lengths={lengths.tolist()}")
        return rt

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: Any = None,
                          name: str | None = None, validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor where `values[i]` belongs to row `value_rowids[i]`.

        `value_rowids` must be sorted ascending and non-negative; `nrows` (default
        `value_rowids[-1] + 1`) adds empty trailing rows.
        """
        rowids = V.int_tensor(value_rowids, "value_rowids", "from_value_rowids")
        if validate:
            if rowids.numel() and (bool((rowids[1:] < rowids[:-1]).any()) or int(rowids[0]) < 0):
                raise InvalidArgumentError(
                    "Arguments to from_value_rowids do not form a valid RowPartition: "
                    "value_rowids must be non-negative and sorted in ascending order; received "
                    f"value_rowids={rowids.tolist()}")
        n = (int(rowids[-1]) + 1 if rowids.numel() else 0) if nrows is None else int(nrows)
        if validate and rowids.numel() and int(rowids[-1]) >= n:
            raise InvalidArgumentError(
                f"Arguments to from_value_rowids do not form a valid RowPartition: value_rowids "
                f"must be < nrows ({n}); received value_rowids={rowids.tolist()}")
        counts = torch.bincount(rowids.to(torch.int64), minlength=n)[:n]
        splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(counts, 0)])
        return cls._make(values, splits.to(rowids.dtype), "from_value_rowids", validate,
                         "value_rowids")

    @classmethod
    def from_row_starts(cls, values: Any, row_starts: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor with rows starting at `row_starts` (the last ends at `len(values)`)."""
        starts = V.int_tensor(row_starts, "row_starts", "from_row_starts")
        vals = values if isinstance(values, RaggedTensor) else V.to_flat(values)
        end = torch.tensor([V.nrows_of(vals)], dtype=starts.dtype)
        return cls._make(vals, torch.cat([starts, end]), "from_row_starts", validate, "row_starts")

    @classmethod
    def from_row_limits(cls, values: Any, row_limits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor with rows ending at `row_limits` (the first starts at 0)."""
        limits = V.int_tensor(row_limits, "row_limits", "from_row_limits")
        splits = torch.cat([torch.zeros(1, dtype=limits.dtype), limits])
        return cls._make(values, splits, "from_row_limits", validate, "row_limits")

    @classmethod
    def from_uniform_row_length(cls, values: Any, uniform_row_length: int, nrows: Any = None,
                                validate: bool = True, name: str | None = None) -> RaggedTensor:
        """Creates a RaggedTensor whose rows all have `uniform_row_length` values."""
        vals = values if isinstance(values, RaggedTensor) else V.to_flat(values)
        length = int(uniform_row_length)
        nvals = V.nrows_of(vals)
        if length < 0 or (length and nvals % length):
            raise ValueError(f"from_uniform_row_length: the number of values ({nvals}) is not a "
                             f"multiple of uniform_row_length ({length})")
        n = (nvals // length if length else 0) if nrows is None else int(nrows)
        splits = torch.arange(n + 1, dtype=torch.int64) * length
        return cls._make(vals, splits, "from_uniform_row_length", validate, uniform=length)

    @classmethod
    def from_nested_row_splits(cls, flat_values: Any, nested_row_splits: Any,
                               name: str | None = None, validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor from flat values and a list of row_splits, outermost first."""
        if isinstance(nested_row_splits, torch.Tensor) or not isinstance(
                nested_row_splits, (list, tuple)):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = flat_values
        for splits in reversed(nested_row_splits):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Any,
                                name: str | None = None, validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor from flat values and a list of row_lengths, outermost first."""
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values: Any, nested_value_rowids: Any,
                                 nested_nrows: Any = None, name: str | None = None,
                                 validate: bool = True) -> RaggedTensor:
        """Creates a RaggedTensor from flat values and a list of value_rowids, outermost first."""
        rowids = list(nested_value_rowids)
        nrows = [None] * len(rowids) if nested_nrows is None else list(nested_nrows)
        result = flat_values
        for ids, n in reversed(list(zip(rowids, nrows))):
            result = cls.from_value_rowids(result, ids, n, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor: Any, lengths: Any = None, padding: Any = None,
                    ragged_rank: int = 1, name: str | None = None,
                    row_splits_dtype: Any = torch.int64) -> RaggedTensor:
        """Converts a dense tensor into a RaggedTensor.

        With `lengths` (row lengths of the innermost ragged dimension) or `padding`
        (a value stripped from the end of each row), rows are cut short; with neither,
        every row keeps its full length (a uniform ragged dimension).
        """
        if lengths is not None and padding is not None:
            raise ValueError("Specify at most one of 'lengths' and 'padding' in from_tensor")
        dense = V.to_flat(tensor)
        shape = tuple(dense.shape)
        if not 1 <= ragged_rank < len(shape):
            raise ValueError(f"from_tensor: ragged_rank must be in [1, rank) = [1, {len(shape)}); "
                             f"received ragged_rank={ragged_rank} for a tensor of shape "
                             f"{list(shape)}")
        sdt = V.splits_dtype(row_splits_dtype)
        outer = shape[:ragged_rank + 1]
        inner = shape[ragged_rank + 1:]
        flat = dense.reshape((-1,) + inner)
        last = outer[-1]
        nrows_inner = int(np.prod(outer[:-1]))
        if padding is not None:
            pad = V.to_flat(padding) if not V.is_strings(flat) else np.asarray(padding, object)
            if V.is_strings(flat):
                eq = np.vectorize(lambda a, b: a == b, otypes=[bool])(flat, pad) if flat.size \
                    else np.zeros(flat.shape, bool)
                is_pad = torch.from_numpy(eq.reshape(flat.shape[0], -1).all(axis=1))
            else:
                is_pad = (flat == pad).reshape(flat.shape[0], -1).all(dim=1)
            not_pad = (~is_pad).reshape(nrows_inner, last)
            idx = torch.arange(1, last + 1).expand(nrows_inner, last)
            lens = torch.where(not_pad, idx, torch.zeros_like(idx)).max(dim=1).values \
                if last else torch.zeros(nrows_inner, dtype=torch.int64)
        elif lengths is not None:
            lens = V.int_tensor(lengths, "lengths", "from_tensor").reshape(-1).to(torch.int64)
            if lens.numel() != nrows_inner:
                raise ValueError(f"from_tensor: lengths must have {nrows_inner} entries (one per "
                                 f"row); received {lens.numel()}")
        else:
            lens = None
        if lens is None:
            keep = flat
            splits = torch.arange(nrows_inner + 1, dtype=torch.int64) * last
            uniform = last
        else:
            lens = lens.clamp(0, last)
            keep = V.gather(flat, V.ranges(torch.arange(nrows_inner) * last, lens))
            splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lens, 0)])
            uniform = None
        result: Any = cls(keep, splits.to(sdt), internal=True, uniform_row_length=uniform)
        for k in range(ragged_rank - 2, -1, -1):
            n = int(np.prod(outer[:k + 1]))
            width = outer[k + 1]
            result = cls(result, (torch.arange(n + 1, dtype=torch.int64) * width).to(sdt),
                         internal=True, uniform_row_length=width)
        return result

    @classmethod
    def from_sparse(cls, st_input: SparseTensor, name: str | None = None,
                    row_splits_dtype: Any = torch.int64) -> RaggedTensor:
        """Converts a 2-D `tf.SparseTensor` (indices in row-major order) into a RaggedTensor.

        Each row keeps its values in order; the column indices are dropped.
        """
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"st_input must be a SparseTensor; received {type(st_input).__name__}")
        if st_input.indices.shape[1] != 2:
            raise ValueError(f"from_sparse: st_input must be 2-D; received dense_shape "
                             f"{st_input.dense_shape.tolist()}")
        rows = st_input.indices[:, 0]
        if rows.numel() > 1 and bool((rows[1:] < rows[:-1]).any()):
            raise ValueError("from_sparse: st_input's indices must be in row-major order; use "
                             "tf.sparse.reorder first")
        n = int(st_input.dense_shape[0])
        counts = torch.bincount(rows, minlength=n)[:n]
        splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(counts, 0)])
        return cls(st_input.values, splits.to(V.splits_dtype(row_splits_dtype)), internal=True)

    # ------------------------------------------------------------------ accessors
    @property
    def values(self) -> Any:
        """The concatenated rows (a tensor, or a RaggedTensor for ragged_rank > 1)."""
        return self._values

    @property
    def flat_values(self) -> Any:
        """The innermost values tensor (not ragged)."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def row_splits(self) -> torch.Tensor:
        """The row-split indices (1-D, `nrows() + 1` entries, starting at 0)."""
        return self._row_splits

    @property
    def nested_row_splits(self) -> tuple[torch.Tensor, ...]:
        """The row_splits of every ragged dimension, outermost first."""
        out = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            out.append(v._row_splits)
            v = v._values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        """The number of times the RaggedTensor's flat_values is partitioned."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def row_splits_dtype(self) -> torch.dtype:
        """The dtype of the row partitions (tf.int64 or tf.int32)."""
        return self._row_splits.dtype

    @property
    def uniform_row_length(self) -> torch.Tensor | None:
        """The length of each row when all rows have the same length (else None)."""
        if self._uniform_row_length is None:
            return None
        return torch.tensor(self._uniform_row_length, dtype=self._row_splits.dtype)

    @property
    def dtype(self) -> Any:
        """The dtype of the values (`tf.string` for strings)."""
        return V.dtype_of(self.flat_values)

    @property
    def shape(self) -> Any:
        """The statically known shape: a `TensorShape` with None for each ragged dimension."""
        return TensorShape(self._static_shape())

    def _static_shape(self) -> list:
        v = self._values
        inner = v._static_shape()[1:] if isinstance(v, RaggedTensor) else list(v.shape[1:])
        return [self._nrows(), self._uniform_row_length, *inner]

    def get_shape(self) -> Any:
        """The same as `shape`."""
        return self.shape

    @property
    def _type_spec(self) -> Any:
        """The `tf.RaggedTensorSpec` of this value (what `tf.type_spec_from_value` returns)."""
        return _spec.RaggedTensorSpec.from_value(self)

    @property
    def ndim(self) -> int:
        """The rank (number of dimensions)."""
        return len(self._static_shape())

    @property
    def device(self) -> Any:
        """The device of the flat values (strings live on the host)."""
        fv = self.flat_values
        return fv.device if isinstance(fv, torch.Tensor) else torch.device("cpu")

    def _nrows(self) -> int:
        return int(self._row_splits.numel()) - 1

    def nrows(self, out_type: Any = None, name: str | None = None) -> torch.Tensor:
        """The number of rows, a scalar tensor (int64, or `out_type`)."""
        return torch.tensor(self._nrows(), dtype=V.splits_dtype(out_type or self.row_splits_dtype,
                                                                 "out_type"))

    def row_starts(self, name: str | None = None) -> torch.Tensor:
        """The start index of each row in `values` (`row_splits[:-1]`)."""
        return self._row_splits[:-1]

    def row_limits(self, name: str | None = None) -> torch.Tensor:
        """The end index of each row in `values` (`row_splits[1:]`)."""
        return self._row_splits[1:]

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        """The length of each row (axis 1), or of each row of a deeper ragged dimension (a
        RaggedTensor shaped like the dimensions above `axis`)."""
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if axis < 1 or not isinstance(self._values, RaggedTensor):
            raise ValueError(f"row_lengths: axis must be between 1 and ragged_rank "
                             f"({self.ragged_rank}); received axis={axis}")
        return self.with_values(self._values.row_lengths(axis - 1))

    def nested_row_lengths(self, name: str | None = None) -> tuple[torch.Tensor, ...]:
        """The row_lengths of every ragged dimension, outermost first."""
        return tuple(s[1:] - s[:-1] for s in self.nested_row_splits)

    def value_rowids(self, name: str | None = None) -> torch.Tensor:
        """The row index of each value in `values`."""
        lengths = (self._row_splits[1:] - self._row_splits[:-1]).to(torch.int64)
        return torch.repeat_interleave(torch.arange(self._nrows()), lengths).to(
            self._row_splits.dtype)

    def nested_value_rowids(self, name: str | None = None) -> tuple[torch.Tensor, ...]:
        """The value_rowids of every ragged dimension, outermost first."""
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    def bounding_shape(self, axis: Any = None, name: str | None = None,
                       out_type: Any = None) -> torch.Tensor:
        """The smallest dense shape that holds every row: [nrows, max row length, ...]."""
        dims = self._bounding()
        out = torch.tensor(dims, dtype=V.splits_dtype(out_type or self.row_splits_dtype,
                                                      "out_type"))
        return out if axis is None else out[axis]

    def _bounding(self) -> list[int]:
        lengths = self._row_splits[1:] - self._row_splits[:-1]
        width = int(lengths.max()) if lengths.numel() else 0
        v = self._values
        inner = v._bounding()[1:] if isinstance(v, RaggedTensor) else [int(d) for d in v.shape[1:]]
        return [self._nrows(), width, *inner]

    # ------------------------------------------------------------------ conversions
    def to_tensor(self, default_value: Any = None, name: str | None = None,
                  shape: Any = None) -> Any:
        """Converts into a dense tensor, padding each row with `default_value` (0 or b'').

        `shape` (None entries keep the bounding size) pads or truncates the result.
        """
        inner = self._values.to_tensor(default_value) if isinstance(self._values, RaggedTensor) \
            else self._values
        full_shape = [self._nrows(), self._bounding()[1], *inner.shape[1:]]
        out = V.full(tuple(full_shape), default_value, inner)
        rows = self.value_rowids().to(torch.int64)
        cols = torch.arange(rows.numel()) - self._row_splits.to(torch.int64)[:-1][rows]
        if rows.numel():
            if isinstance(out, np.ndarray):
                out[rows.numpy(), cols.numpy()] = inner
            else:
                out[rows, cols] = inner
        if shape is None:
            return out
        want = [None if d is None or (not isinstance(d, int) and d is None) else int(d)
                for d in (shape.as_list() if hasattr(shape, "as_list") else list(shape))]
        if len(want) != len(full_shape):
            raise ValueError(f"to_tensor: shape must have rank {len(full_shape)}; received "
                             f"shape={want}")
        target = tuple(f if w is None else w for w, f in zip(want, full_shape))
        result = V.full(target, default_value, inner)
        region = tuple(slice(0, min(a, b)) for a, b in zip(target, full_shape))
        result[region] = out[region]
        return result

    def _value_positions(self) -> torch.Tensor:
        """int64 [nvalues, ragged_rank + 1]: the dense index of each row of flat_values."""
        rows = self.value_rowids().to(torch.int64)
        cols = torch.arange(rows.numel()) - self._row_splits.to(torch.int64)[:-1][rows]
        pos = torch.stack([rows, cols], dim=1)
        if isinstance(self._values, RaggedTensor):
            inner = self._values._value_positions()
            pos = torch.cat([pos[inner[:, 0]], inner[:, 1:]], dim=1)
        return pos

    def to_sparse(self, name: str | None = None) -> SparseTensor:
        """Converts into a `tf.SparseTensor` with dense_shape `bounding_shape()`."""
        pos = self._value_positions()
        fv = self.flat_values
        inner = tuple(int(d) for d in fv.shape[1:])
        if inner:
            grid = torch.cartesian_prod(*[torch.arange(d) for d in inner]).reshape(-1, len(inner))
            n, m = pos.shape[0], grid.shape[0]
            pos = torch.cat([pos.repeat_interleave(m, 0), grid.repeat(n, 1)], dim=1)
            fv = fv.reshape(-1)
        return SparseTensor._from_parts(pos, fv, torch.tensor(self._bounding(), dtype=torch.int64))

    def to_list(self) -> list:
        """The value as nested Python lists (strings as bytes)."""
        vals = self._values.to_list() if isinstance(self._values, RaggedTensor) \
            else V.as_python(self._values)
        s = self._row_splits.tolist()
        return [vals[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def numpy(self) -> np.ndarray:
        """The value as numpy, as TF's `RaggedTensor.numpy()`: rows of different lengths make
        a 1-D object array of row arrays; rows of one length a regular array."""
        v = self._values
        if isinstance(v, RaggedTensor):
            values = v.numpy()
        elif isinstance(v, np.ndarray):
            values = np.array(V.as_python(v), dtype=object).reshape(v.shape)
        else:
            values = v.detach().cpu().numpy()
        splits = self._row_splits.tolist()
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        if any(len(row) != len(rows[0]) for row in rows):
            out = np.empty(len(rows), dtype=object)
            for i, row in enumerate(rows):
                out[i] = row
            return out
        return np.array(rows)

    def with_values(self, new_values: Any) -> RaggedTensor:
        """A copy with `values` replaced (same row_splits; same number of rows required)."""
        new = new_values if isinstance(new_values, RaggedTensor) else V.to_flat(new_values)
        if V.nrows_of(new) != V.nrows_of(self._values):
            raise ValueError(f"with_values: new_values must have {V.nrows_of(self._values)} rows "
                             f"(as values); received {V.nrows_of(new)}")
        return RaggedTensor(new, self._row_splits, internal=True,
                            uniform_row_length=self._uniform_row_length)

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        """A copy with `flat_values` replaced (same nested row_splits)."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype: Any) -> RaggedTensor:
        """A copy whose row partitions have `dtype` (tf.int32 or tf.int64)."""
        d = V.splits_dtype(dtype, "dtype")
        vals = self._values.with_row_splits_dtype(d) if isinstance(self._values, RaggedTensor) \
            else self._values
        return RaggedTensor(vals, self._row_splits.to(d), internal=True,
                            uniform_row_length=self._uniform_row_length)

    def merge_dims(self, outer_axis: int, inner_axis: int) -> Any:
        """Merges dimensions `outer_axis..inner_axis` into one (a dense tensor when all
        ragged dimensions are merged away)."""
        rank = self.ndim
        outer = outer_axis + rank if outer_axis < 0 else outer_axis
        inner = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= outer <= inner < rank:
            raise ValueError(f"merge_dims: expected 0 <= outer_axis ({outer_axis}) <= inner_axis "
                             f"({inner_axis}) < rank ({rank})")
        if outer == inner:
            return self
        if outer > 1:
            return self.with_values(_merge(self._values, outer - 1, inner - 1))
        if outer == 1:
            vals = self._values
            splits = self._row_splits.to(torch.int64)
            if isinstance(vals, RaggedTensor):
                splits = vals._row_splits.to(torch.int64)[splits]
                merged = vals.merge_dims(0, inner - 1) if inner > 2 else vals._values
            else:
                splits = splits * int(np.prod(vals.shape[1:inner]))
                merged = vals.reshape((-1, *vals.shape[inner:]))
            return RaggedTensor(merged, splits.to(self._row_splits.dtype), internal=True)
        # outer == 0: drop this partition, then merge the rest of values' leading dims
        vals = self._values
        if inner == 1:
            return vals
        if isinstance(vals, RaggedTensor):
            return vals.merge_dims(0, inner - 1)
        return vals.reshape((-1, *vals.shape[inner:]))

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError("RaggedTensor has no truth value; use tf.reduce_any / tf.reduce_all on "
                        "its flat_values")

    def __repr__(self) -> str:
        return f"<tf.RaggedTensor {self.to_list()}>"

    __str__ = __repr__


def _merge(values: Any, outer: int, inner: int) -> Any:
    if isinstance(values, RaggedTensor):
        return values.merge_dims(outer, inner)
    return values.reshape((*values.shape[:outer], -1, *values.shape[inner + 1:]))


def is_ragged(value: Any) -> bool:
    """True for a RaggedTensor."""
    return isinstance(value, RaggedTensor)
