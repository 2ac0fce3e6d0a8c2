"""Benchmark of tf.io.parse_example and TFRecord reading, against TensorFlow 2.15.

    python bench/bench_parse_example.py            # all figures (about a minute)
    python bench/bench_parse_example.py --no-tf    # without the TensorFlow subprocess

Batches of serialized Examples as a server receives them:
  iris   4 float features (FixedLenFeature([1], tf.float32)), the issue's Iris export
  mixed  2 floats, an int64, a string of varying length (FixedLen) and a VarLen string list
Each figure is the best of several runs (µs per parse_example call on the whole batch), for
our default parser (vectorized when the batch's Examples are same-shaped), our protobuf
(upb) path forced, and TensorFlow's `tf.io.parse_example` run eagerly and inside a
`tf.function` (what a SavedModel signature does), measured in a subprocess of the tf215
venv (~/anchor-venvs/tf215, or $TF215_PYTHON) when it exists. Then TFRecord reading
(records/s of a 200,000-record file) with both.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import timeit

import numpy as np

BATCHES = (1, 100, 1000)
IRIS_KEYS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def make_batches(kind: str, n: int, seed: int = 0) -> list[bytes]:
    """Serialized Examples of the benchmark (the same bytes on both sides)."""
    from torchestimator.io._from_values import _example_from_values

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        if kind == "iris":
            values = {k: float(np.float32(v)) for k, v in zip(IRIS_KEYS, rng.random(4) * 8)}
        else:
            values = {"age": float(np.float32(rng.random() * 90)),
                      "hours": float(np.float32(rng.random() * 60)),
                      "zip": int(rng.integers(0, 100_000)),
                      "occupation": ["Tech-support", "Sales", "Exec-managerial",
                                     "Craft-repair", "Other"][int(rng.integers(0, 5))],
                      "tags": [f"t{j}" for j in range(int(rng.integers(0, 4)))]}
        out.append(_example_from_values(values).SerializeToString())
    return out


SPECS = {
    "iris": {k: ("fixed", [1], "float32") for k in IRIS_KEYS},
    "mixed": {"age": ("fixed", [], "float32"), "hours": ("fixed", [], "float32"),
              "zip": ("fixed", [], "int64"), "occupation": ("fixed", [], "string"),
              "tags": ("var", None, "string")},
}


def build_spec(tf, kind: str) -> dict:
    dtypes = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}
    return {k: (tf.io.FixedLenFeature(shape, dtypes[d]) if how == "fixed"
                else tf.io.VarLenFeature(dtypes[d])) for k, (how, shape, d) in SPECS[kind].items()}


def best_us(fn, batch: int) -> float:
    number = max(1, 2000 // max(batch, 1))
    fn()
    return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def ours() -> dict:
    import torchestimator as tf
    from torchestimator.io._proto_parse import parse_with_protobuf
    from torchestimator.io._specs import check_specs

    result = {}
    for kind in SPECS:
        spec = build_spec(tf, kind)
        for n in BATCHES:
            batch = make_batches(kind, n)
            result[(kind, n, "ours")] = best_us(
                lambda b=batch, s=spec: tf.io.parse_example(b, s), n)
            specs = check_specs(spec)
            result[(kind, n, "ours, protobuf path")] = best_us(
                lambda b=batch, s=specs: parse_with_protobuf(b, s, None), n)
    return result


TF_SCRIPT = r"""
import json, sys, timeit, os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
args = json.loads(sys.stdin.read())
out = {}
dt = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}
def best(fn, n):
    number = max(1, 2000 // max(n, 1)); fn()
    return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6
for kind, spec_desc in args["specs"].items():
    spec = {k: (tf.io.FixedLenFeature(s, dt[d]) if how == "fixed" else tf.io.VarLenFeature(dt[d]))
            for k, (how, s, d) in spec_desc.items()}
    fn = tf.function(lambda s, spec=spec: tf.io.parse_example(s, spec))
    for n, path in args["batches"][kind].items():
        batch = tf.constant(open(path, "rb").read().split(b"\0SEP\0") if int(n) else [])
        out[f"{kind}|{n}|TF 2.15 eager"] = best(lambda: tf.io.parse_example(batch, spec), int(n))
        out[f"{kind}|{n}|TF 2.15 tf.function"] = best(lambda: fn(batch), int(n))
ds_path = args["tfrecord"]
def read():
    c = 0
    for _ in tf.data.TFRecordDataset(ds_path, buffer_size=256 * 1024).batch(1024):
        c += 1
    return c
out["tfrecord|TF 2.15"] = min(timeit.repeat(read, number=1, repeat=3))
print(json.dumps(out))
"""


def tensorflow(tmp: str, tfrecord: str) -> dict:
    python = os.environ.get("TF215_PYTHON", os.path.expanduser("~/anchor-venvs/tf215/bin/python"))
    if not os.path.exists(python):
        return {}
    batches: dict = {}
    for kind in SPECS:
        batches[kind] = {}
        for n in BATCHES:
            path = os.path.join(tmp, f"{kind}-{n}.bin")
            data = make_batches(kind, n)
            assert all(b"\0SEP\0" not in d for d in data)
            open(path, "wb").write(b"\0SEP\0".join(data))
            batches[kind][str(n)] = path
    proc = subprocess.run([python, "-c", TF_SCRIPT], input=json.dumps(
        {"specs": SPECS, "batches": batches, "tfrecord": tfrecord}), capture_output=True,
        text=True, timeout=600)
    if proc.returncode:
        print("TensorFlow subprocess failed:", proc.stderr[-2000:], file=sys.stderr)
        return {}
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    out = {}
    for key, value in raw.items():
        parts = key.split("|")
        out[(parts[0], int(parts[1]), parts[2]) if len(parts) == 3 else tuple(parts)] = value
    return out


def tfrecord_figures(path: str) -> float:
    import torchestimator as tf

    def read():
        for _ in tf.data.TFRecordDataset(path).batch(1024):
            pass
    return min(timeit.repeat(read, number=1, repeat=3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-tf", action="store_true", help="skip the TensorFlow subprocess")
    parser.add_argument("--records", type=int, default=200_000)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(2)
    import torchestimator as tf

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.tfrecord")
        records = make_batches("mixed", 1000)
        with tf.io.TFRecordWriter(path) as w:
            for i in range(args.records):
                w.write(records[i % 1000])
        figures = ours()
        ours_read = tfrecord_figures(path)
        tf_figures = {} if args.no_tf else tensorflow(tmp, path)
    figures.update(tf_figures)
    columns = ["ours", "ours, protobuf path", "TF 2.15 eager", "TF 2.15 tf.function"]
    print("parse_example, µs per call on the whole batch (best of 7)")
    print(f"{'batch':<14}" + "".join(f"{c:>22}" for c in columns))
    for kind in SPECS:
        for n in BATCHES:
            cells = [figures.get((kind, n, c)) for c in columns]
            print(f"{kind + ' ' + str(n):<14}" + "".join(
                f"{c:>22.1f}" if c is not None else f"{'-':>22}" for c in cells))
    print(f"\nTFRecordDataset(...).batch(1024), {args.records:,} records of ~"
          f"{len(records[0])} bytes: ours {args.records / ours_read:,.0f} records/s", end="")
    tf_read = tf_figures.get(("tfrecord", "TF 2.15"))
    print(f", TF 2.15 {args.records / tf_read:,.0f} records/s" if tf_read else "")
    print("\nTF 2.15's whole predict call on the Iris DNNClassifier export at batch 100 "
          "(issue 14): 413 µs")


if __name__ == "__main__":
    main()
