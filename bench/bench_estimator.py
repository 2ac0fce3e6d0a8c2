"""Benchmark of `tf.estimator.Estimator.train` against a hand-written torch loop.

    python bench/bench_estimator.py                 # 2 threads, 5 interleaved repeats
    python bench/bench_estimator.py --threads 1 --repeats 9
    python bench/bench_estimator.py --profile       # cProfile of the Estimator's 1,000 steps
    python bench/bench_estimator.py --only-w1       # only W1, the premade DNNClassifier

The work (the issue's Performance section): Iris (120 rows, in memory),
`Dataset.from_tensor_slices(...).shuffle(1000).repeat().batch(32)`, a custom
model_fn with `DenseFeatures` over the 4 numeric columns, `Dense` [10, 10]
ReLU, 3 logits, sparse softmax cross-entropy, Adagrad(0.05), 1,000 steps with
the default RunConfig (checkpoints at the start and the end, loss and
`global_step/sec` summaries every 100 steps, the default hooks).

The torch loop does the same work by hand: the same epoch permutations and
batches of 32, 4 columns concatenated, `nn.Linear` 4-10-10-3, cross-entropy,
`torch.optim.Adagrad(lr=0.05, initial_accumulator_value=0.1)`, and a
`torch.save` of the model and optimizer at the start and at the end.

Both run in the same process, interleaved, `--repeats` times; the table shows
medians. "total" includes everything `train()` does from a fresh Estimator
(building the model on the first batch, the checkpoints); "steady" is the
rate of a second `train(steps=1000)` on the same Estimator minus nothing
(restore + first checkpoint included, model already built).
W1, the premade estimator (the issue's Iris walkthrough): `DNNClassifier(hidden_units=[10, 10],
n_classes=3)` with its defaults (Adagrad, learning rate 0.001 -- the TF 2 canned DNN's default,
see `estimator/canned/dnn.py`; initial accumulator 0.1; ReLU; the multi-class head), fed from a
pandas DataFrame read as TF's example reads the CSV (float64 columns):
`Dataset.from_tensor_slices((dict(df), labels)).shuffle(1000).repeat().batch(32)`,
`train(steps=1000)` on a fresh Estimator. The torch loop does the same model by hand (float64
columns cast to float32, 4-10-10-3, cross-entropy, `torch.optim.Adagrad(lr=0.001,
initial_accumulator_value=0.1)`, the two saves). Both report steps/s over the 1,000 steps and
"steady": the rate from step 100 to step 1000.

Also reported: the fixed cost of `train()` (a fresh Estimator's
`train(steps=1)`, in this warm process and in a cold one) and the time and
size of a checkpoint save of a 10M-parameter model (weights + Adagrad slots).
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np
import torch

import torchestimator as tf

STEPS = 1000
BATCH = 32

# ---------------------------------------------------------------------------- the Estimator


def iris() -> tuple[np.ndarray, np.ndarray]:
    """The Iris training split: features [120, 4] float32, labels [120] int64."""
    (x, y), _ = tf.datasets.iris.load_data()
    return x.astype(np.float32), y.astype(np.int64)


def make_input_fn(x: np.ndarray, y: np.ndarray):
    """The issue's input_fn: from_tensor_slices(...).shuffle(1000).repeat().batch(32)."""
    names = tf.datasets.iris.FEATURE_NAMES

    def input_fn():
        features = {n: x[:, i] for i, n in enumerate(names)}
        return tf.data.Dataset.from_tensor_slices((features, y)).shuffle(1000).repeat().batch(BATCH)

    return input_fn


def model_fn(features, labels, mode, params):
    """TF's custom-estimator model_fn: DenseFeatures, Dense [10, 10], Adagrad(0.05)."""
    net = tf.keras.layers.DenseFeatures(params["feature_columns"])(features)
    for units in params["hidden_units"]:
        net = tf.keras.layers.Dense(units, activation="relu")(net)
    logits = tf.keras.layers.Dense(3)(net)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    optimizer = tf.compat.v1.train.AdagradOptimizer(learning_rate=0.05)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def make_estimator(model_dir: str) -> tf.estimator.Estimator:
    """A fresh Estimator on `model_dir` with the default RunConfig."""
    columns = [tf.feature_column.numeric_column(n) for n in tf.datasets.iris.FEATURE_NAMES]
    return tf.estimator.Estimator(model_fn, model_dir=model_dir,
                                  params={"feature_columns": columns, "hidden_units": [10, 10]})


def run_estimator(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(seconds of a fresh Estimator's train(steps=1000), seconds of a second such call)."""
    model_dir = tempfile.mkdtemp(prefix="bench_est_")
    try:
        est = make_estimator(model_dir)
        input_fn = make_input_fn(x, y)
        start = time.perf_counter()
        est.train(input_fn, steps=STEPS)
        total = time.perf_counter() - start
        start = time.perf_counter()
        est.train(input_fn, steps=STEPS)
        steady = time.perf_counter() - start
        return total, steady
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def first_step_latency(x: np.ndarray, y: np.ndarray) -> float:
    """Seconds of a fresh Estimator's train(steps=1): the fixed cost of train()."""
    model_dir = tempfile.mkdtemp(prefix="bench_est_")
    try:
        est = make_estimator(model_dir)
        start = time.perf_counter()
        est.train(make_input_fn(x, y), steps=1)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


# ---------------------------------------------------------------------------- the torch loop


def run_torch(x: np.ndarray, y: np.ndarray) -> float:
    """Seconds of the hand-written torch loop doing the same work (build, 2 saves, 1,000 steps)."""
    model_dir = tempfile.mkdtemp(prefix="bench_torch_")
    try:
        start = time.perf_counter()
        names = tf.datasets.iris.FEATURE_NAMES
        columns = {n: torch.from_numpy(x[:, i].copy()) for i, n in enumerate(names)}
        labels = torch.from_numpy(y)
        order = sorted(names)  # DenseFeatures concatenates columns sorted by name
        model = torch.nn.Sequential(
            torch.nn.Linear(4, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10), torch.nn.ReLU(),
            torch.nn.Linear(10, 3),
        )
        optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05, initial_accumulator_value=0.1)

        def save(step: int) -> None:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step},
                       os.path.join(model_dir, f"model-{step}.pt"))

        def batches():
            pending = torch.empty(0, dtype=torch.int64)
            while True:
                while pending.numel() < BATCH:
                    pending = torch.cat([pending, torch.randperm(len(labels))])
                idx, pending = pending[:BATCH], pending[BATCH:]
                yield {n: c[idx] for n, c in columns.items()}, labels[idx]

        save(0)
        it = batches()
        for _ in range(STEPS):
            features, target = next(it)
            inputs = torch.cat([features[n].reshape(-1, 1) for n in order], dim=1)
            loss = torch.nn.functional.cross_entropy(model(inputs), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        save(STEPS)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


# ---------------------------------------------------------------------------- W1: premade DNN

DNN_LEARNING_RATE = 0.001  # the TF 2 DNNClassifier's default (Adagrad), estimator/canned/dnn.py
STEADY_FROM = 100


def iris_frame(x: np.ndarray) -> Any:
    """The Iris features as TF's walkthrough has them: a DataFrame of float64 columns."""
    import pandas as pd

    return pd.DataFrame(x.astype(np.float64), columns=tf.datasets.iris.FEATURE_NAMES)


class _StepClock(tf.estimator.SessionRunHook):
    """Records the time when step STEADY_FROM ends and when the last step ends."""

    def __init__(self) -> None:
        self.steps = 0
        self.at_steady = self.at_end = 0.0

    def after_run(self, run_context, run_values):
        self.steps += 1
        now = time.perf_counter()
        if self.steps == STEADY_FROM:
            self.at_steady = now
        self.at_end = now


def run_premade(df, y: np.ndarray) -> tuple[float, float]:
    """(seconds of a fresh DNNClassifier's train(steps=1000), seconds of its steps 100..1000)."""
    model_dir = tempfile.mkdtemp(prefix="bench_dnn_")
    try:
        columns = [tf.feature_column.numeric_column(n) for n in df.columns]
        est = tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns,
                                         n_classes=3, model_dir=model_dir)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((dict(df), y)).shuffle(1000).repeat().batch(BATCH)

        clock = _StepClock()
        start = time.perf_counter()
        est.train(input_fn, steps=STEPS, hooks=[clock])
        total = time.perf_counter() - start
        return total, clock.at_end - clock.at_steady
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def run_premade_torch(df, y: np.ndarray) -> tuple[float, float]:
    """The same work by hand: (seconds of the 1,000 steps with the saves, seconds of 100..1000)."""
    model_dir = tempfile.mkdtemp(prefix="bench_torch_dnn_")
    try:
        start = time.perf_counter()
        columns = {n: torch.from_numpy(df[n].to_numpy()) for n in df.columns}  # float64
        labels = torch.from_numpy(y)
        order = sorted(df.columns)
        model = torch.nn.Sequential(
            torch.nn.Linear(4, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10), torch.nn.ReLU(),
            torch.nn.Linear(10, 3),
        )
        optimizer = torch.optim.Adagrad(model.parameters(), lr=DNN_LEARNING_RATE,
                                        initial_accumulator_value=0.1)

        def save(step: int) -> None:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step},
                       os.path.join(model_dir, f"model-{step}.pt"))

        pending = torch.empty(0, dtype=torch.int64)
        save(0)
        at_steady = start
        for step in range(1, STEPS + 1):
            while pending.numel() < BATCH:
                pending = torch.cat([pending, torch.randperm(len(labels))])
            idx, pending = pending[:BATCH], pending[BATCH:]
            inputs = torch.cat([columns[n][idx].reshape(-1, 1) for n in order], dim=1).float()
            loss = torch.nn.functional.cross_entropy(model(inputs), labels[idx])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if step == STEADY_FROM:
                at_steady = time.perf_counter()
        end = time.perf_counter()
        save(STEPS)
        return time.perf_counter() - start, end - at_steady
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def bench_premade(x: np.ndarray, y: np.ndarray, repeats: int, threads: int) -> None:
    """W1: the premade DNNClassifier on a DataFrame vs the hand-written loop, interleaved."""
    df = iris_frame(x)
    run_premade(df, y)  # warm-up
    run_premade_torch(df, y)
    est_total, est_steady, torch_total, torch_steady = [], [], [], []
    for _ in range(repeats):
        total, steady = run_premade_torch(df, y)
        torch_total.append(total)
        torch_steady.append(steady)
        total, steady = run_premade(df, y)
        est_total.append(total)
        est_steady.append(steady)
    n_steady = STEPS - STEADY_FROM
    t, ts = statistics.median(torch_total), statistics.median(torch_steady)
    e, es = statistics.median(est_total), statistics.median(est_steady)
    print(f"\nW1: premade DNNClassifier([10, 10], n_classes=3) on a float64 DataFrame, batch "
          f"{BATCH}, {STEPS} steps, torch.set_num_threads({threads}), median of {repeats} "
          "interleaved repeats\n")
    print(f"{'':36}{'steps/s':>10}{'x torch':>9}{'steady':>10}{'x torch':>9}")
    print(f"{'hand-written torch loop':36}{STEPS / t:>10,.0f}{1:>9.2f}{n_steady / ts:>10,.0f}{1:>9.2f}")
    print(f"{'DNNClassifier.train':36}{STEPS / e:>10,.0f}{t / e:>9.2f}{n_steady / es:>10,.0f}"
          f"{ts / es:>9.2f}")


# ---------------------------------------------------------------------------- checkpoints


class _SaveTimer(tf.estimator.CheckpointSaverListener):
    """Times each checkpoint save (before_save -> after_save)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._start = 0.0

    def before_save(self, session, global_step_value):
        self._start = time.perf_counter()

    def after_save(self, session, global_step_value):
        self.times.append(time.perf_counter() - self._start)


def checkpoint_cost(repeats: int) -> dict:
    """Save time and file size of a 10M-parameter model (Dense 1000->5000->1000, Adagrad)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 1000)).astype(np.float32)
    y = rng.normal(size=(64, 1000)).astype(np.float32)

    def big_model_fn(features, labels, mode):
        net = tf.keras.layers.Dense(5000)(features)
        out = tf.keras.layers.Dense(1000)(net)
        loss = torch.mean((out - labels) ** 2)
        train_op = tf.compat.v1.train.AdagradOptimizer(0.01).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    model_dir = tempfile.mkdtemp(prefix="bench_ckpt_")
    try:
        config = tf.estimator.RunConfig(save_checkpoints_steps=1, keep_checkpoint_max=2)
        est = tf.estimator.Estimator(big_model_fn, model_dir=model_dir, config=config)
        timer = _SaveTimer()
        est.train(lambda: tf.data.Dataset.from_tensors((x, y)).repeat(), steps=repeats,
                  saving_listeners=[timer])
        path = est.latest_checkpoint()
        size = os.path.getsize(path + ".safetensors") + os.path.getsize(path + ".json")
        params = sum(int(np.prod(s)) for n, s in tf.train.list_variables(path)
                     if n.startswith("dense"))
        # The same tensors through torch.save, for reference.
        tensors = {n: torch.from_numpy(tf.train.load_variable(path, n))
                   for n, _ in tf.train.list_variables(path)}
        torch_times = []
        for _ in range(repeats):
            start = time.perf_counter()
            target = os.path.join(model_dir, "ref.pt")
            torch.save(tensors, target)
            with open(target, "rb+") as f:
                os.fsync(f.fileno())
            torch_times.append(time.perf_counter() - start)
        return {"params": params, "save_s": statistics.median(timer.times[1:] or timer.times),
                "bytes": size, "torch_save_s": statistics.median(torch_times)}
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def cold_torch_first_step() -> float:
    """The hand-written loop's first step in a fresh interpreter (after `import torch`): model,
    Adagrad, one batch, one step -- what `cold_first_step` compares to."""
    code = (
        "import time, torch; torch.set_num_threads(1); t = time.perf_counter()\n"
        "m = torch.nn.Sequential(torch.nn.Linear(4, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10),"
        " torch.nn.ReLU(), torch.nn.Linear(10, 3))\n"
        "o = torch.optim.Adagrad(m.parameters(), lr=0.05, initial_accumulator_value=0.1)\n"
        "loss = torch.nn.functional.cross_entropy(m(torch.randn(32, 4)), torch.randint(0, 3, (32,)))\n"
        "o.zero_grad(); loss.backward(); o.step(); print(time.perf_counter() - t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def cold_first_step() -> float:
    """train(steps=1) latency in a fresh interpreter (imports of the training path included)."""
    code = (
        f"import sys, time, tempfile; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); import torch; torch.set_num_threads(1)\n"
        "import bench_estimator as b\n"
        "x, y = b.iris(); est = b.make_estimator(tempfile.mkdtemp())\n"
        "t = time.perf_counter(); est.train(b.make_input_fn(x, y), steps=1)\n"
        "print(time.perf_counter() - t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile one Estimator run")
    parser.add_argument("--only-w1", action="store_true", help="only the premade W1 case")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    logging.getLogger("torchestimator").setLevel(logging.WARNING)
    x, y = iris()
    if args.only_w1:
        bench_premade(x, y, args.repeats, args.threads)
        return

    # Warm-up: imports, first-use caches.
    run_torch(x, y)
    run_estimator(x, y)
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        run_estimator(x, y)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        return

    torch_s, est_total_s, est_steady_s, first_s = [], [], [], []
    for _ in range(args.repeats):
        torch_s.append(run_torch(x, y))
        total, steady = run_estimator(x, y)
        est_total_s.append(total)
        est_steady_s.append(steady)
        first_s.append(first_step_latency(x, y))
    t = statistics.median(torch_s)
    e = statistics.median(est_total_s)
    s = statistics.median(est_steady_s)
    ckpt = checkpoint_cost(max(3, args.repeats))
    cold = cold_first_step()
    cold_torch = cold_torch_first_step()

    print(f"\nEstimator.train vs a hand-written torch loop: Iris, batch {BATCH}, {STEPS} steps, "
          f"torch.set_num_threads({args.threads}), median of {args.repeats} interleaved repeats\n")
    rows = [
        ("hand-written torch loop", f"{STEPS / t:,.0f} steps/s", f"{t:.3f} s", "1.00"),
        ("Estimator.train (fresh Estimator)", f"{STEPS / e:,.0f} steps/s", f"{e:.3f} s", f"{t / e:.2f}"),
        ("Estimator.train (second call)", f"{STEPS / s:,.0f} steps/s", f"{s:.3f} s", f"{t / s:.2f}"),
    ]
    print(f"{'':36}{'rate':>16}{'time':>11}{'x torch':>9}")
    for name, rate, sec, ratio in rows:
        print(f"{name:36}{rate:>16}{sec:>11}{ratio:>9}")
    print(f"\nfixed cost of train() (fresh Estimator, train(steps=1)): warm process "
          f"{statistics.median(first_s) * 1e3:.1f} ms, cold process {cold * 1e3:.0f} ms "
          f"(the torch loop's first step in a cold process: {cold_torch * 1e3:.0f} ms)")
    print(f"checkpoint of a {ckpt['params'] / 1e6:.1f}M-parameter model (+ Adagrad slots): "
          f"save {ckpt['save_s'] * 1e3:.0f} ms, {ckpt['bytes'] / 2**20:.1f} MiB "
          f"(torch.save + fsync of the same tensors: {ckpt['torch_save_s'] * 1e3:.0f} ms)")
    bench_premade(x, y, args.repeats, args.threads)


if __name__ == "__main__":
    main()
