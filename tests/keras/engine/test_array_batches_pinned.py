"""Batches that `fit` gathers from host arrays for a CUDA step are gathered into pinned memory
(one host copy, then a copy to the GPU that does not block), not gathered and then pinned."""

import numpy as np
import pytest
import torch

from torchestimator._engine import loop
from torchestimator.keras.engine import data_adapter
from torchestimator.keras.engine.data_adapter import ArrayData


def _arrays():
    rng = np.random.default_rng(0)
    return rng.standard_normal((50, 3), dtype=np.float32), rng.integers(0, 4, 50), np.linspace(0, 1, 50)


def test_a_cuda_step_gathers_every_array_with_the_pinned_gather(monkeypatch):
    calls = []

    def spy(array, dim, index):  # the CPU has no pinned memory: the gather itself, recorded
        calls.append(tuple(array.shape))
        return torch.index_select(array, dim, index)

    monkeypatch.setattr(data_adapter, "_pinned_rows", spy)
    x, y, sw = _arrays()
    data = ArrayData(x, y, sw, batch_size=16, shuffle=True)
    data.device = torch.device("cuda", 0)
    batches = list(data)
    assert len(batches) == 4 and len(calls) == 12  # x, y and the weights of each batch
    assert sorted(torch.cat([b[0] for b in batches]).tolist()) == sorted(torch.from_numpy(x).tolist())
    calls.clear()
    for device in (torch.device("cpu"), None):  # no pinning for the CPU
        data.device = device
        assert len(list(data)) == 4 and not calls


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_batches_for_a_cuda_step_are_pinned_and_cross_without_another_copy():
    x, y, sw = _arrays()
    data = ArrayData(x, y, sw, batch_size=16, shuffle=True)
    data.device = loop.default_device() if loop.default_device().type == "cuda" else torch.device("cuda")
    seen = []
    for xb, yb, swb in data:
        assert xb.is_pinned() and yb.is_pinned() and swb.is_pinned()
        moved = loop.to_device((xb, yb, swb), data.device)
        assert moved[0].is_cuda
        seen.append(moved[0].cpu())
    assert sorted(torch.cat(seen).tolist()) == sorted(torch.from_numpy(x).tolist())
