"""SparseTensor values in `tf.data` elements: their spec, and stacking them into a batch.

Below `columns`, `structure` and `sparse_batching`, which all use these."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._sparse_tensor import SparseTensor
from torchestimator._type_spec import SparseTensorSpec


def sparse_spec(value: SparseTensor) -> SparseTensorSpec:
    """The `SparseTensorSpec` of a SparseTensor value."""
    return SparseTensorSpec.from_value(value)


def _cat_values(parts: list) -> Any:
    if parts and isinstance(parts[0], np.ndarray):
        return np.concatenate(parts) if parts else np.empty(0, dtype=object)
    return torch.cat(parts)


def stack_sparse(elements: list[SparseTensor], where: str = "batch") -> SparseTensor:
    """One SparseTensor whose row i is `elements[i]` (all of one rank); its dense shape is
    [len(elements), *the largest dense shape of the elements]."""
    ranks = {len(e.dense_shape) for e in elements}
    if len(ranks) > 1:
        raise ValueError(f"{where}: cannot batch SparseTensors of different ranks "
                         f"{sorted(ranks)}; every element of a component needs the same rank")
    rank = ranks.pop()
    shape = torch.stack([e.dense_shape for e in elements]).amax(0) if rank else \
        torch.zeros(0, dtype=torch.int64)
    idx = [torch.cat([torch.full((len(e.indices), 1), i, dtype=torch.int64), e.indices], 1)
           for i, e in enumerate(elements)]
    values = _cat_values([e.values for e in elements])
    dense_shape = torch.cat([torch.tensor([len(elements)], dtype=torch.int64), shape])
    return SparseTensor._from_parts(torch.cat(idx) if idx else torch.zeros(0, rank + 1,
                                                                           dtype=torch.int64),
                                    values, dense_shape)
