"""Shared helpers of the tests that compare with TF 2.15's recorded tf.data results
(tests/data/fixtures/tf_data_transforms.json, written by
tools/make_tf_data_transform_fixtures.py)."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec, dtype_name
from torchestimator.data.dataset_spec import DatasetSpec

_FILE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_data_transforms.json")
with open(_FILE) as _f:
    TF = json.load(_f)


def py(value: Any) -> Any:
    """An element as JSON-like values (the fixture's form)."""
    if isinstance(value, dict):
        return {k: py(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [py(v) for v in value]
    if isinstance(value, torch.Tensor):
        return value.tolist()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bytes):
        return value.decode()
    return value


def spec(s: Any) -> Any:
    """An element spec in the fixture's form: [shape, dtype name] per component."""
    if isinstance(s, dict):
        return {k: spec(v) for k, v in s.items()}
    if isinstance(s, tuple):
        return [spec(v) for v in s]
    if isinstance(s, DatasetSpec):
        return {"dataset": spec(s.element_spec)}
    assert isinstance(s, TensorSpec), s
    return [None if s.shape is None else list(s.shape), dtype_name(s.dtype)]


def record(ds: Any) -> dict:
    """What the recording script stores for a dataset: values, spec and cardinality."""
    return {"values": [py(e) for e in ds.as_numpy_iterator()], "spec": spec(ds.element_spec),
            "cardinality": int(ds.cardinality())}


def tf_message(key: str) -> str:
    """The message of a recorded TF error, without TF's op-node decorations."""
    message = TF[key]["message"]
    if message.startswith("{{function_node"):
        message = message.split("}} ", 1)[1]
    return message.split(" [Op:")[0]
