"""Per-step overhead budget of the premade estimators: microseconds per step outside torch ops.

    python bench/bench_step_overhead.py [--steps 1000] [--threads 1] [--repeats 5]

Two workloads of the issue's table, each a fresh Estimator's `train(steps=N)` (after one
warm-up run in the same process):

* W1: `DNNClassifier(hidden_units=[10, 10], n_classes=3)` on Iris as a float64 DataFrame,
  `from_tensor_slices((dict(df), labels)).shuffle(1000).repeat().batch(32)`;
* W5: `DNNLinearCombinedClassifier` with its defaults on `bench_premade.py`'s table (numeric,
  vocabulary, hashed and crossed columns; embeddings in the deep part), batch 256.

"per step" is the wall time of `train()` divided by the steps. "in torch ops" is the sum of the
self times of every op torch's profiler records in a second, profiled `train()` (forward,
backward through the autograd engine, optimizer), per step; "outside" is the difference: Python,
the data pipeline, hooks, the Estimator's bookkeeping (an estimate: the profiler's own cost
per op is partly inside the ops' times). Runs alternate, plain and profiled; medians of
`--repeats` each. With `--threads 1` every kernel runs on the calling thread.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_premade  # noqa: E402  (the W5 table and columns)

import torchestimator as tf  # noqa: E402


def w1() -> tuple:
    """(make_estimator(model_dir), input_fn) of W1."""
    import pandas as pd

    (x, y), _ = tf.datasets.iris.load_data()
    df = pd.DataFrame(x.astype(np.float64), columns=tf.datasets.iris.FEATURE_NAMES)
    labels = y.astype(np.int64)
    columns = [tf.feature_column.numeric_column(n) for n in df.columns]

    def make(model_dir: str):
        return tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns, n_classes=3,
                                          model_dir=model_dir)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((dict(df), labels)).shuffle(1000).repeat().batch(32)

    return make, input_fn


def w5() -> tuple:
    """(make_estimator(model_dir), input_fn) of W5 (wide & deep, defaults, batch 256)."""
    features, labels, _ = bench_premade.make_table(100_000, seed=0)
    cols = bench_premade.columns()

    def make(model_dir: str):
        return bench_premade.build("wide_deep", model_dir, cols, len(labels))

    return make, bench_premade.input_fn(features, labels, 256, epochs=100)


def one_run(make, input_fn, steps: int, profile: bool) -> float:
    """Seconds of a fresh Estimator's train(steps), or (profile) the seconds its torch ops took
    by the profiler."""
    model_dir = tempfile.mkdtemp(prefix="bench_overhead_")
    try:
        est = make(model_dir)
        if not profile:
            start = time.perf_counter()
            est.train(input_fn, steps=steps)
            return time.perf_counter() - start
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            est.train(input_fn, steps=steps)
        return sum(e.self_cpu_time_total for e in prof.key_averages()) / 1e6
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def measure(name: str, workload, steps: int, repeats: int) -> dict:
    make, input_fn = workload()
    one_run(make, input_fn, min(steps, 50), profile=False)  # warm-up: first-use costs
    plain, in_ops = [], []
    for _ in range(repeats):
        plain.append(one_run(make, input_fn, steps, False))
        in_ops.append(one_run(make, input_fn, steps, True))
    return {"name": name, "per_step": statistics.median(plain) / steps * 1e6,
            "in_ops": statistics.median(in_ops) / steps * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=["w1", "w5"], default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    logging.getLogger("torchestimator").setLevel(logging.WARNING)
    workloads = {"w1": ("W1 DNNClassifier, Iris, batch 32", w1),
                 "w5": ("W5 wide & deep, batch 256", w5)}
    rows = [measure(label, fn, args.steps, args.repeats)
            for key, (label, fn) in workloads.items() if args.only in (None, key)]
    print(f"\nPer-step cost of a fresh Estimator's train(steps={args.steps}), wall time, "
          f"torch.set_num_threads({args.threads}), median of {args.repeats}\n")
    print(f"{'':36}{'us/step':>10}{'in torch ops':>14}{'outside':>10}")
    for row in rows:
        outside = row["per_step"] - row["in_ops"]
        print(f"{row['name']:36}{row['per_step']:>10.0f}{row['in_ops']:>14.0f}{outside:>10.0f}")


if __name__ == "__main__":
    main()
