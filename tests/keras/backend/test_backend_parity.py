"""Parity of `tf.keras.backend` with TF 2.15 / Keras 2.15: values, dtypes, signatures and error
messages, against fixtures made by tools/make_tf_keras_backend_fixtures.py."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest
import torch

import torchestimator as tf

K = tf.keras.backend
FIXTURES = Path(__file__).parent / "fixtures"
SPEC = json.loads((FIXTURES / "backend.json").read_text())
ARRAYS = dict(np.load(FIXTURES / "backend.npz"))


def _tuples(value):
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def decode(spec, tuples: bool = True):
    """A fixture argument: arrays as tensors; JSON lists as the tuples TF got (or as lists)."""
    if "npz" in spec:
        return torch.as_tensor(ARRAYS[spec["npz"]])
    if "list" in spec:
        return [decode(s, tuples) for s in spec["list"]]
    return _tuples(spec["value"]) if tuples else spec["value"]


def resolve(name: str):
    obj = K
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def flatten(out) -> list:
    if isinstance(out, tf.SparseTensor):
        return [np.asarray(out.indices), np.asarray(out.values), np.asarray(out.dense_shape)]
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in flatten(o)]
    if isinstance(out, torch.Tensor):
        return [out.detach().cpu().numpy()]
    return [np.asarray(out)]


def assert_same(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} != TF's {theirs.shape}"
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype {ours.dtype} != TF's {theirs.dtype}"
    if theirs.dtype.kind == "f":
        np.testing.assert_allclose(ours, theirs, atol=1e-5, rtol=1e-5, err_msg=what)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=what)


@pytest.mark.parametrize("case", SPEC["cases"], ids=[c["id"] for c in SPEC["cases"]])
def test_matches_tf(case):
    out = resolve(case["fn"])(*[decode(a) for a in case["args"]],
                              **{k: decode(v) for k, v in case["kwargs"].items()})
    flat = flatten(out)
    assert len(flat) == case["n_out"], f"{case['id']}: {len(flat)} outputs, TF gives {case['n_out']}"
    for i, ours in enumerate(flat):
        assert_same(ours, ARRAYS[f"{case['id']}__out{i}"], f"{case['id']} output {i}")


@pytest.mark.parametrize("case", SPEC["meta"], ids=[c["id"] for c in SPEC["meta"]])
def test_meta_matches_tf(case):
    value = resolve(case["fn"])(*[decode(a) for a in case["args"]])
    if isinstance(value, np.generic):
        value = value.item()
    expected = case["result"]
    if isinstance(expected, list):
        expected = tuple(expected)
    assert value == expected


@pytest.mark.parametrize("case", SPEC["errors"], ids=[c["id"] for c in SPEC["errors"]])
def test_error_matches_tf(case):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is checked below
        resolve(case["fn"])(*[decode(a, False) for a in case["args"]],
                            **{k: decode(v, False) for k, v in case["kwargs"].items()})
    assert type(info.value).__name__ == case["type"], str(info.value)
    assert case["message"] in str(info.value)


def test_every_tf_name_has_tf_signature():
    sigs = SPEC["signatures"]
    ours_names = {n for n in dir(K) if not n.startswith("_")}
    missing = [n for n in sigs if n.split(".")[0] not in ours_names]
    assert not missing
    for name, params in sigs.items():
        ours = inspect.signature(resolve(name)).parameters.values()
        ours_params = [{"name": p.name, "kind": p.kind.name,
                        "default": None if p.default is inspect.Parameter.empty else repr(p.default)}
                       for p in ours]
        if name.startswith("experimental."):
            for p in ours_params:
                p["default"] = None
        assert ours_params == params, name


RNN_W = torch.as_tensor(ARRAYS["rnn__w"])
RNN_U = torch.as_tensor(ARRAYS["rnn__u"])


def _step(x, states):
    h = torch.tanh(x @ RNN_W + states[0] @ RNN_U)
    if len(states) > 1:
        h = h + states[1]
    return h, [h]


@pytest.mark.parametrize("variant", sorted(SPEC["rnn"]))
def test_rnn_matches_tf(variant):
    kw = dict(SPEC["rnn"][variant]["kwargs"])
    x = torch.as_tensor(ARRAYS["rnn__inputs"])
    if kw.get("time_major"):
        x = x.transpose(0, 1)
    if "mask" in kw:
        kw["mask"] = torch.as_tensor(ARRAYS["rnn__mask"])
    if "constants" in kw:
        kw["constants"] = [torch.as_tensor(ARRAYS["rnn__const"])]
    if "input_length" in kw:
        kw["input_length"] = torch.as_tensor(ARRAYS["rnn__lengths"])
    last, outputs, states = K.rnn(_step, x, [torch.as_tensor(ARRAYS["rnn__h0"])], **kw)
    # TF: a tuple from its while loop, the step function's list when unrolled without a mask
    assert isinstance(states, list if kw.get("unroll") and "mask" not in kw else tuple)
    assert len(states) == 1
    for i, ours in enumerate([last, outputs, states[0]]):
        assert_same(ours.numpy(), ARRAYS[f"{variant}__out{i}"] if variant.startswith("rnn_")
                    else ARRAYS[f"rnn_{variant}__out{i}"], f"rnn {variant} output {i}")


def test_map_fn_and_folds_match_tf():
    elems = torch.as_tensor(ARRAYS["fold__elems"])
    assert_same(K.map_fn(lambda v: v * v + 1.0, elems).numpy(), ARRAYS["map_fn__out0"], "map_fn")
    assert_same(K.foldl(lambda a, v: a * 0.5 + v, elems).numpy(), ARRAYS["foldl__out0"], "foldl")
    assert_same(K.foldr(lambda a, v: a * 0.5 + v, elems).numpy(), ARRAYS["foldr__out0"], "foldr")
    got = K.foldl(lambda a, v: a + torch.sum(v), elems, initializer=torch.tensor(1.0))
    assert_same(np.asarray(got.numpy()), ARRAYS["foldl_init__out0"], "foldl initializer")
