"""The column views of one matrix: `packed_matrix` gives the [n, k] matrix back from its k
column views (what `tf.data` hands out for numeric features it keeps packed, `data.columns`,
and what `to_device` hands out after moving such a matrix in one copy)."""

from __future__ import annotations

from collections.abc import Sequence

import torch


def packed_matrix(values: Sequence[torch.Tensor]) -> torch.Tensor | None:
    """The [n, len(values)] row-major matrix whose columns, in order, are `values`, when they are
    the column views of one such matrix (what `packed` and `PackedBlock.take` hand out); None
    otherwise (the caller stacks them itself).

    The matrix returned shares the values' memory (a view): it holds exactly their elements, so it
    equals `torch.stack(values, dim=1)`. Only plain CPU or device tensors of one dtype, shape [n],
    with no gradient are considered.
    """
    k = len(values)
    if k < 2:
        return None
    first = values[0]
    if (type(first) is not torch.Tensor or first.ndim != 1 or first.requires_grad
            or first.stride() != (k,)):
        return None
    n, dtype = first.shape[0], first.dtype
    itemsize = first.element_size()
    start = first.data_ptr()
    for j in range(1, k):
        v = values[j]
        # (a stride of one entry: 1-D; dtypes are singletons; one address space for all devices)
        if (type(v) is not torch.Tensor or v.data_ptr() != start + j * itemsize or v.stride() != (k,)
                or v.dtype is not dtype or v.shape[0] != n or v.requires_grad):
            return None
    offset = first.storage_offset()
    if (offset + n * k) * itemsize > first.untyped_storage().nbytes():
        return None  # the columns lie in separate buffers that merely follow one another
    return first.as_strided((n, k), (k, 1), offset)
