"""Writes TF 2.15 reference outputs for `tf.linalg` LinearOperators and functions.

Run with the TF venv:  ~/anchor-venvs/tf215/bin/python tools/make_tf_linalg_fixtures.py
Outputs: tests/linalg/fixtures/linalg_tf215.npz (arrays) and linalg_tf215.json
(shapes, hints, names, error types/messages, public signatures).
"""

from __future__ import annotations

import inspect
import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "linalg"))

import _linalg_cases as cases  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(ROOT, "tests", "linalg", "fixtures")


def T(a):
    return tf.constant(a)


def to_np(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def _to_np_tree(v):
    if isinstance(v, (tuple, list)):
        return [to_np(t) for t in v]
    return [to_np(v)]


def signature(obj) -> list:
    target = obj.__init__ if isinstance(obj, type) else obj
    target = inspect.unwrap(target)
    params = list(inspect.signature(target).parameters.values())
    return [[p.name, repr(p.default) if p.default is not inspect.Parameter.empty else None]
            for p in params if p.name != "self"]


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    arrays: dict = {}
    meta: dict = {"operators": {}, "functions": {}, "errors": {}, "signatures": {}, "method_signatures": {}}
    for name, build in cases.operator_cases().items():
        op = build(tf, T)
        meta["operators"][name] = cases.operator_meta(op)
        results = cases.run_operator(op, tf, T, to_np)
        meta["operators"][name]["tf_rejected"] = results.pop("_failed", [])
        for k, v in results.items():
            arrays[f"op/{name}/{k}"] = v
    for name, fn in cases.function_cases().items():
        outs = _to_np_tree(fn(tf, T))
        meta["functions"][name] = len(outs)
        for i, v in enumerate(outs):
            arrays[f"fn/{name}/{i}"] = v
    for name, fn in cases.error_cases().items():
        try:
            fn(tf, T)
        except Exception as err:  # noqa: BLE001 - we record whatever TF raises
            meta["errors"][name] = {"type": type(err).__name__, "message": str(err)[:300]}
        else:
            meta["errors"][name] = None
    for n in dir(tf.linalg):
        if n.startswith("LinearOperator") or n in cases.FUNCTION_NAMES:
            meta["signatures"][n] = signature(getattr(tf.linalg, n))
    meta["signatures"]["experimental.conjugate_gradient"] = signature(tf.linalg.experimental.conjugate_gradient)
    for m in cases.METHOD_NAMES:
        meta["method_signatures"][m] = signature(getattr(tf.linalg.LinearOperator, m))
    np.savez_compressed(os.path.join(OUT, "linalg_tf215.npz"), **arrays)
    with open(os.path.join(OUT, "linalg_tf215.json"), "w") as fh:
        json.dump(meta, fh, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays, {len(meta['errors'])} error cases")


if __name__ == "__main__":
    main()
