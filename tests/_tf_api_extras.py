"""Loads TF 2.15's recorded outputs for the issue-32 names (tests/fixtures/tf_api_extras.json,
written by tools/make_tf_api_extras_fixtures.py) and compares torchestimator's results."""

from __future__ import annotations

import functools
import json
import math
import os

import numpy as np
import torch

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "tf_api_extras.json")


@functools.lru_cache(maxsize=1)
def _cases() -> dict:
    with open(PATH) as f:
        return json.load(f)


def case(name: str) -> dict:
    return _cases()[name]


def _plain(v):
    if isinstance(v, dict) and "bytes" in v:
        return bytes.fromhex(v["bytes"])
    if isinstance(v, dict) and "float" in v:
        return float(v["float"])
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def expected(name: str):
    """TF's output of case `name`: numpy arrays, nested lists for ragged, tuples for tuples."""
    c = case(name)
    assert "out" in c, f"TF raised {c.get('error')} for {name}: {c.get('message')}"
    return decode(c["out"])


def decode(v):
    if "ragged" in v:
        return _plain(v["ragged"])
    if "seq" in v:
        return tuple(decode(x) for x in v["seq"])
    if "dict" in v:
        return {k: decode(x) for k, x in v["dict"].items()}
    if "py" in v:
        return _plain(v["py"])
    value = _plain(v["value"])
    if v["dtype"] in ("string", "object"):
        out = np.empty(v["shape"], dtype=object)
        if out.ndim == 0:
            out[()] = value
        else:
            flat = np.array(value, dtype=object).reshape(-1) if value else []
            out.reshape(-1)[:] = list(flat)
        return out
    dtype = {"bfloat16": "float32", "quint8": "uint8", "qint8": "int8", "qint32": "int32",
             "quint16": "uint16", "qint16": "int16"}.get(v["dtype"], v["dtype"])
    return np.array(value, dtype=dtype).reshape(v["shape"])


def error(name: str) -> str:
    c = case(name)
    assert "error" in c, f"TF did not raise for {name}"
    return c["error"]


def to_list(x):
    """A result (tensor, array, RaggedTensor, list of rows) as nested Python lists."""
    if hasattr(x, "to_list"):
        return to_list(x.to_list())
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().tolist()
    if isinstance(x, np.ndarray):
        return [to_list(v) for v in x] if x.ndim else to_list(x.item())
    if isinstance(x, (list, tuple)):
        return [to_list(v) for v in x]
    return x


def _text(v):
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return v
    if isinstance(v, list):
        return [_text(x) for x in v]
    return v


def assert_same(actual, want, rtol: float = 1e-5, atol: float = 1e-6):
    """`actual` equals TF's `want` (values; floats to tolerance; NaN matches NaN)."""
    if isinstance(want, tuple):
        assert len(actual) == len(want)
        for a, w in zip(actual, want):
            assert_same(a, w, rtol, atol)
        return
    if isinstance(want, np.ndarray) and want.dtype != object:
        a = actual.detach().cpu().numpy() if isinstance(actual, torch.Tensor) else np.asarray(
            actual)
        assert a.shape == want.shape, (a.shape, want.shape)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(a.astype(np.float64), want.astype(np.float64),
                                       rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(a, want)
        return
    if isinstance(want, np.ndarray):
        assert np.shape(actual) == want.shape, (np.shape(actual), want.shape)
        assert _text(to_list(actual)) == _text(to_list(want))
        return
    a = to_list(actual)
    if isinstance(want, float) and math.isnan(want):
        assert math.isnan(a)
        return
    assert _text(a) == _text(want), (a, want)
