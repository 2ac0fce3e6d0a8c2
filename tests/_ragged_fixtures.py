"""TF 2.15's recorded ragged values (tools/make_tf_ragged_fixtures.py) and a comparison helper."""

from __future__ import annotations

import json
import os

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ragged_tensor import RaggedTensor
from torchestimator._sparse_tensor import SparseTensor

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf_ragged.json")) as _f:
    TF = json.load(_f)


def plain(v):
    """Nested Python lists with bytes decoded (as the fixtures store strings)."""
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return plain(v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    return v


def unwrap(fix):
    """A fixture {"kind": "list"/"dict"/"python"} as plain Python (for nested records)."""
    if fix["kind"] == "list":
        return [unwrap(x) for x in fix["items"]]
    if fix["kind"] == "dict":
        return {k: unwrap(v) for k, v in fix["items"].items()}
    if fix["kind"] == "python":
        return fix["value"]
    return fix


def same(value, fix, approx=False):
    """Asserts `value` (ours) equals a recorded TF value: kind, contents, shape and dtype."""
    if isinstance(fix, dict) and fix.get("kind") == "list":
        assert len(value) == len(fix["items"])
        for a, b in zip(value, fix["items"]):
            same(a, b, approx)
        return
    if isinstance(fix, dict) and fix.get("kind") == "dict":
        assert set(value) == set(fix["items"])
        for k in value:
            same(value[k], fix["items"][k], approx)
        return
    kind = fix["kind"]
    if kind == "ragged":
        assert isinstance(value, RaggedTensor), type(value)
        got = plain(value.to_list())
        assert got == fix["value"] if not approx else np.allclose(
            np.concatenate([np.ravel(x) for x in got] or [[]]),
            np.concatenate([np.ravel(x) for x in fix["value"]] or [[]]))
        assert value.shape.as_list() == fix["shape"]
        assert value.ragged_rank == fix["ragged_rank"]
        assert [s.tolist() for s in value.nested_row_splits] == fix["nested_row_splits"]
    elif kind == "tensor":
        assert isinstance(value, (torch.Tensor, np.ndarray)), type(value)
        assert plain(value.tolist()) == fix["value"]
        assert list(value.shape) == fix["shape"]
    elif kind == "sparse":
        assert isinstance(value, SparseTensor), type(value)
        assert value.indices.tolist() == fix["indices"]
        assert plain(value.values.tolist()) == fix["value"]
        assert value.dense_shape.tolist() == fix["dense_shape"]
    else:
        assert plain(value) == fix["value"]
        return
    assert _dtypes.dtype_name(value.dtype if not isinstance(value, np.ndarray)
                              else _dtypes.string) == fix["dtype"]
