"""`Block`: a run of consecutive elements stored column by column.

A block holds `n` elements as one array per flat component, each with a
leading dimension of `n`: torch tensors for numeric data, numpy object arrays
for strings. Shuffling, batching and file reading move whole blocks, so the
pipeline never creates a Python object per row on those paths.

Row selections (`take`) are either a `range` (a view: contiguous or strided)
or a numpy int64 array (a gather).

Packed numeric columns (`packed`, `PackedBlock`): a block's 1-D numeric columns of one dtype
are stored side by side in one [n, k] matrix, and the columns handed out are its column views.
A consumer that wants the matrix back asks `packed_matrix(values)`, which reads only public
tensor properties (data pointer, shape, stride) -- nothing is attached to the tensors, so a
column that was replaced, copied or moved simply takes the consumer's general path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._engine.packed_columns import packed_matrix  # noqa: F401 - re-exported
from torchestimator.data import encoded_strings
from torchestimator.data._sparse_values import stack_sparse

Index = range | np.ndarray


def index_array(idx: Index) -> np.ndarray:
    """Returns `idx` as an int64 numpy array."""
    if isinstance(idx, range):
        return np.arange(idx.start, idx.stop, idx.step, dtype=np.int64)
    return idx


def concat_indices(parts: Sequence[Index]) -> Index:
    """Concatenates index selections (a single part is returned unchanged)."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate([index_array(p) for p in parts])


def col_concat(cols: Sequence[Any]) -> Any:
    """Concatenates columns along the row dimension."""
    if len(cols) == 1:
        return cols[0]
    if isinstance(cols[0], torch.Tensor):
        return torch.cat(cols)
    return encoded_strings.concatenate(cols)


def col_stack(values: Sequence[Any]) -> Any:
    """Stacks per-element components into one column (error if their shapes differ)."""
    first = values[0]
    if isinstance(first, torch.Tensor):
        return torch.stack(values)
    if isinstance(first, np.ndarray):
        return np.stack(values)
    if type(first).__name__ == "SparseTensor":  # a batched tf.SparseTensor (sparse_batching.py)
        return stack_sparse(list(values))
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def col_unsqueeze(value: Any) -> Any:
    """A component as a one-row column."""
    if isinstance(value, torch.Tensor):
        return value.unsqueeze(0)
    if isinstance(value, np.ndarray):
        return value[None]
    out = np.empty(1, dtype=object)
    out[0] = value
    return out


def col_shape(value: Any) -> tuple:
    """The shape of a component (a scalar string has shape ())."""
    return tuple(getattr(value, "shape", ()))


class Block:
    """`n` consecutive elements as a list of columns (one per flat component)."""

    __slots__ = ("cols", "n")

    def __init__(self, cols: list, n: int):
        self.cols = cols
        self.n = n

    def __len__(self) -> int:
        return self.n

    def take(self, idx: Index) -> Block:
        """The rows `idx` of this block (views for a range, one gather per column otherwise)."""
        if isinstance(idx, range):
            s = slice(idx.start, idx.stop, idx.step)
            return Block([c[s] for c in self.cols], len(idx))
        t = torch.from_numpy(idx)
        return Block([c.index_select(0, t if c.is_cpu else t.to(c.device))
                      if isinstance(c, torch.Tensor) else c[idx] for c in self.cols], len(idx))

    def slice(self, start: int, stop: int) -> Block:
        """Rows `start:stop` (views)."""
        if start == 0 and stop >= self.n:
            return self
        stop = min(stop, self.n)
        return Block([c[start:stop] for c in self.cols], stop - start)

    def row(self, i: int) -> list:
        """Element `i` as a flat list of components."""
        return [c[i] for c in self.cols]

    def rows(self):
        """Iterates the elements of this block (flat lists)."""
        cols = self.cols
        if len(cols) == 1:
            c = cols[0]
            for i in range(self.n):
                yield [c[i]]
        else:
            for i in range(self.n):
                yield [c[i] for c in cols]

    @staticmethod
    def concat(blocks: Sequence[Block]) -> Block:
        """One block holding the rows of `blocks` in order."""
        if len(blocks) == 1:
            return blocks[0]
        n = sum(b.n for b in blocks)
        if not blocks[0].cols:
            return Block([], n)
        cols = [col_concat([b.cols[j] for b in blocks]) for j in range(len(blocks[0].cols))]
        return Block(cols, n)

    @staticmethod
    def from_element(flat: list) -> Block:
        """A one-row block holding one element."""
        return Block([col_unsqueeze(v) for v in flat], 1)

    @staticmethod
    def stack(elements: Sequence[list], what: str = "batch") -> Block:
        """A block holding `elements` (flat lists); error naming the component on a shape mismatch."""
        n = len(elements)
        if not elements[0]:
            return Block([], n)
        cols = []
        for j in range(len(elements[0])):
            values = [e[j] for e in elements]
            try:
                cols.append(col_stack(values))
            except (RuntimeError, ValueError):
                shapes = [col_shape(v) for v in values]
                k = next(i for i, s in enumerate(shapes) if s != shapes[0])
                raise ValueError(
                    f"Cannot {what} tensors with different shapes in component {j}. First "
                    f"element had shape {list(shapes[0])} and element {k} had shape "
                    f"{list(shapes[k])}. Use `padded_batch` for elements of varying shape."
                ) from None
        return Block(cols, n)


#: The largest set of columns `packed` stores side by side (bytes of the packed copy).
MAX_PACKED_BYTES = 1 << 26


class PackedBlock(Block):
    """A block whose 1-D numeric columns of one dtype live side by side in one [n, k] matrix
    (`packed`): each such column is a column view of its matrix, and a gather of rows takes the
    rows of the matrix once (one op instead of k) and hands out column views of the result.

    `packs` holds `(matrix, positions)`: the matrix and the positions of its columns in `cols`.
    """

    __slots__ = ("packs", "_loose")

    def __init__(self, cols: list, n: int, packs: tuple):
        super().__init__(cols, n)
        self.packs = packs
        taken = {j for _, positions in packs for j in positions}
        self._loose = tuple(j for j in range(len(cols)) if j not in taken)

    def take(self, idx: Index) -> Block:
        """The rows `idx`: views for a range; otherwise one gather per matrix and per other column."""
        if isinstance(idx, range):
            return super().take(idx)
        t = torch.from_numpy(idx)
        cols = list(self.cols)
        for matrix, positions in self.packs:
            for j, column in zip(positions, matrix.index_select(0, t).unbind(1)):
                cols[j] = column
        for j in self._loose:
            c = cols[j]
            cols[j] = (c.index_select(0, t if c.is_cpu else t.to(c.device)) if isinstance(c, torch.Tensor)
                       else c[idx])
        return Block(cols, len(idx))


def packed(block: Block) -> Block:
    """`block` with its 1-D CPU tensor columns of one dtype (two or more) stored side by side in
    one matrix (`PackedBlock`), when they take at most `MAX_PACKED_BYTES`; `block` itself when no
    columns qualify. The values are copied into the matrix: the columns of `block` are no longer
    referenced afterwards."""
    groups: dict[torch.dtype, list[int]] = {}
    for j, c in enumerate(block.cols):
        if type(c) is torch.Tensor and c.ndim == 1 and c.device.type == "cpu" and not c.requires_grad:
            groups.setdefault(c.dtype, []).append(j)
    cols = list(block.cols)
    packs = []
    for dtype, positions in groups.items():
        size = block.n * len(positions) * torch.empty((), dtype=dtype).element_size()
        if len(positions) < 2 or size > MAX_PACKED_BYTES:
            continue
        matrix = torch.stack([cols[j] for j in positions], dim=1)
        for j, column in zip(positions, matrix.unbind(1)):
            cols[j] = column
        packs.append((matrix, tuple(positions)))
    return PackedBlock(cols, block.n, tuple(packs)) if packs else block
