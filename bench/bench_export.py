"""In-process serving speed of an export: `signatures["predict"](examples=...)` calls per second
on the Iris DNNClassifier [10, 10] export with a parsing receiver, at batch 1 and 100, ours
against TensorFlow 2.15 calling the same signature of its own export of the same model
(when a TF venv is given), interleaved in one run, 2 threads each.

    python bench/bench_export.py [--tf-python ~/anchor-venvs/tf215/bin/python] [--rounds 3]

Prints a table: batch, ours calls/s (us a call), TF calls/s, ratio; and the split of one of
our calls into parse / preprocessing / program.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

TF_SCRIPT = r"""
import json, sys, time, tempfile, os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads(2)
tf.config.threading.set_inter_op_parallelism_threads(2)
data = np.load(sys.argv[1])
x, y, names = data["x"], data["y"], [str(n) for n in data["names"]]
cols = [tf.feature_column.numeric_column(k) for k in names]
est = tf.estimator.DNNClassifier([10, 10], cols, n_classes=3, model_dir=tempfile.mkdtemp())
est.train(lambda: tf.data.Dataset.from_tensor_slices(({k: x[:, i] for i, k in enumerate(names)}, y)).repeat().batch(32), steps=200)
path = est.export_saved_model(tempfile.mkdtemp(), tf.estimator.export.build_parsing_serving_input_receiver_fn(
    tf.feature_column.make_parse_example_spec(cols)))
sig = tf.saved_model.load(path).signatures["predict"]
def ex(i):
    e = tf.train.Example()
    for j, k in enumerate(names): e.features.feature[k].float_list.value.append(float(x[i, j]))
    return e.SerializeToString()
out = {}
for b in (1, 100):
    batch = tf.constant([ex(i % len(x)) for i in range(b)])
    for _ in range(200): sig(examples=batch)
    best = 1e9
    for _ in range(5):
        n = 500; t = time.perf_counter()
        for _ in range(n): sig(examples=batch)
        best = min(best, (time.perf_counter() - t) / n)
    out[b] = best
print(json.dumps(out))
"""


def _examples(tf, x, names, size):
    out = []
    for i in range(size):
        example = tf.train.Example()
        for j, k in enumerate(names):
            example.features.feature[k].float_list.value.append(float(x[i % len(x), j]))
        out.append(example.SerializeToString())
    return out


def _best(fn, n=500, repeats=5):
    best = 1e9
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def ours(rounds_dir: str) -> tuple[dict[int, float], dict[str, float]]:
    import torch

    import torchestimator as tf

    torch.set_num_threads(2)
    (x, y), _ = tf.datasets.iris.load_data()
    names = tf.datasets.iris.FEATURE_NAMES
    cols = [tf.feature_column.numeric_column(k) for k in names]
    est = tf.estimator.DNNClassifier([10, 10], cols, n_classes=3, model_dir=tempfile.mkdtemp(dir=rounds_dir))
    features = {k: x[:, i].astype("float32") for i, k in enumerate(names)}
    est.train(lambda: tf.data.Dataset.from_tensor_slices((features, y)).repeat().batch(32), steps=200)
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(tf.feature_column.make_parse_example_spec(cols))
    loaded = tf.saved_model.load(est.export_saved_model(tempfile.mkdtemp(dir=rounds_dir), receiver))
    sig = loaded.signatures["predict"]
    runtime = loaded._runtime
    out, split = {}, {}
    for b in (1, 100):
        batch = _examples(tf, x, names, b)
        for _ in range(200):
            sig(examples=batch)
        out[b] = _best(lambda batch=batch: sig(examples=batch))
        parsed = runtime.receiver.features_from_inputs({"examples": batch}, "predict")
        split[f"parse b{b}"] = _best(
            lambda batch=batch: runtime.receiver.features_from_inputs({"examples": batch}, "predict"))
        split[f"preprocessing+program b{b}"] = _best(lambda parsed=parsed: runtime.run(parsed))
    return out, split


def tensorflow(python: str, workdir: str) -> dict[int, float] | None:
    import torchestimator as tf

    (x, y), _ = tf.datasets.iris.load_data()
    data = os.path.join(workdir, "iris.npz")
    np.savez(data, x=x.astype("float32"), y=y, names=np.array(tf.datasets.iris.FEATURE_NAMES))
    result = subprocess.run([python, "-c", TF_SCRIPT, data], capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        print(f"TensorFlow run failed:\n{result.stderr[-2000:]}", file=sys.stderr)
        return None
    return {int(k): v for k, v in json.loads(result.stdout.strip().splitlines()[-1]).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.path.expanduser("~/anchor-venvs/tf215/bin/python"))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    have_tf = os.path.exists(args.tf_python)
    best_ours: dict[int, float] = {}
    best_tf: dict[int, float] = {}
    split: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as workdir:
        for _ in range(args.rounds):  # interleaved: ours, TF, ours, TF, ...
            o, split_round = ours(workdir)
            for k, v in o.items():
                best_ours[k] = min(best_ours.get(k, 1e9), v)
            for k, v in split_round.items():
                split[k] = min(split.get(k, 1e9), v)
            if have_tf:
                t = tensorflow(args.tf_python, workdir)
                for k, v in (t or {}).items():
                    best_tf[k] = min(best_tf.get(k, 1e9), v)
    print(f"{'batch':>5} | {'ours calls/s':>12} | {'ours us':>8} | {'TF 2.15 calls/s':>15} | {'TF us':>7} | ratio")
    for b in (1, 100):
        o = best_ours[b]
        t = best_tf.get(b)
        tf_cols = f"{1 / t:>15,.0f} | {t * 1e6:>7.0f} | {t / o:.2f}x" if t else f"{'-':>15} | {'-':>7} | -"
        print(f"{b:>5} | {1 / o:>12,.0f} | {o * 1e6:>8.0f} | {tf_cols}")
    print("\nour call, split (us):")
    for k, v in split.items():
        print(f"  {k:<28} {v * 1e6:8.1f}")


if __name__ == "__main__":
    main()
