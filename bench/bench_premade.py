"""Benchmark: the premade estimators on a generated mixed table with a known logit.

The table (default 200,000 training rows + 50,000 test rows) has numeric
(`age`, `hours`), vocabulary (`education`, `occupation`) and hashed (`city`,
300 values) features; the label is drawn from a known logit with a
non-linear age term, an age x hours interaction, per-category effects and an
education x occupation interaction, so the best possible AUC (the oracle's,
scoring by the true logit) is known. The linear model sees bucketized age
and the education x occupation cross, but not the age x hours interaction. Each model trains on the same columns for the same epochs
through `Dataset.from_tensor_slices(...).shuffle(...).repeat(epochs).batch(...)`:

* LinearClassifier (defaults: Ftrl 0.2),
* DNNClassifier (hidden [64, 32], defaults: Adagrad 0.001),
* DNNLinearCombinedClassifier with its defaults (Ftrl min(0.005, 1/sqrt(n)),
  Adagrad 0.001) and with learning rates 0.05 (deep) / 0.2 (wide),
* BoostedTreesClassifier (LightGBM; whole data as one batch, 100 trees, depth 6;
  numeric age and hours, indicator columns for the categories, as TF's
  BoostedTrees takes no hashed or embedded columns).

It prints test AUC (exact, from `predict`), training examples/s and the size
of the model_dir (which must not grow with the data). TF 2.15's figures on
such a table (the issue's, measured with tensorflow-cpu 2.15.1 +
tensorflow-estimator 2.15.0; TensorFlow is not installed here) are printed
beside them.

    python bench/bench_premade.py [--rows 200000] [--epochs 2] [--batch-size 256] [--threads 1]
        [--repeat 3] [--only linear dnn wide_deep wide_deep_tuned boosted_trees]

With `--repeat N` every model is trained N times (the models in turn, so slow
spells of a shared machine hit them alike); the row shows the median run and
the line under it the range of examples/s and AUC over the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time

import numpy as np
import torch
from sklearn.metrics import roc_auc_score

import torchestimator as tf
from torchestimator._engine.loop import default_device
from torchestimator.estimator.canned import (
    BoostedTreesClassifier,
    DNNClassifier,
    DNNLinearCombinedClassifier,
    LinearClassifier,
)

fc = tf.feature_column

EDUCATION = ["none", "primary", "secondary", "bachelor", "master", "doctorate", "trade", "other"]
OCCUPATION = [f"occ{i:02d}" for i in range(12)]
N_CITIES = 300
CITIES = [f"city-{i:04d}" for i in range(N_CITIES)]

# TF 2.15 on such a table (from the issue): AUC and examples/s.
TF_FIGURES = {
    "linear": {"auc": 0.804, "examples_per_s": 37_200},
    "wide_deep": {"auc": 0.758, "examples_per_s": 27_700},
    "wide_deep_tuned": {"auc": 0.846, "examples_per_s": 27_700},
    "boosted_trees": {"auc": 0.854, "note": "LightGBM directly, 2.0 s"},
}


def make_table(rows: int, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Features, labels and the true logit of `rows` generated rows."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 80, size=rows).astype(np.float32)
    hours = np.clip(rng.normal(40, 12, size=rows), 1, 99).astype(np.float32)
    edu = rng.integers(0, len(EDUCATION), size=rows)
    occ = rng.integers(0, len(OCCUPATION), size=rows)
    city = rng.integers(0, N_CITIES, size=rows)
    effects = np.random.default_rng(1234)
    edu_effect = effects.normal(0, 0.8, size=len(EDUCATION))
    occ_effect = effects.normal(0, 0.6, size=len(OCCUPATION))
    city_effect = effects.normal(0, 0.4, size=N_CITIES)
    cross_effect = effects.normal(0, 1.0, size=(len(EDUCATION), len(OCCUPATION)))
    interaction = 1.6 * ((hours > 45) & (age < 35)) - 1.2 * ((hours < 32) & (age > 55)) \
        + 0.6 * np.sin(hours / 4.0)
    logit = (-0.0025 * (age - 48) ** 2 + 0.3 + 0.03 * (hours - 40) + interaction
             + edu_effect[edu] + occ_effect[occ] + city_effect[city] + cross_effect[edu, occ])
    labels = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    features = {
        "age": age,
        "hours": hours,
        "education": np.array(EDUCATION, dtype=object)[edu],
        "occupation": np.array(OCCUPATION, dtype=object)[occ],
        "city": np.array(CITIES, dtype=object)[city],
    }
    return features, labels, logit


def columns() -> dict[str, list]:
    """The feature columns of each part."""
    age = fc.numeric_column("age")
    hours = fc.numeric_column("hours")
    education = fc.categorical_column_with_vocabulary_list("education", EDUCATION)
    occupation = fc.categorical_column_with_vocabulary_list("occupation", OCCUPATION)
    city = fc.categorical_column_with_hash_bucket("city", 4000)
    age_buckets = fc.bucketized_column(age, [25, 30, 35, 40, 45, 50, 55, 60, 65, 70])
    cross = fc.crossed_column([education, occupation], 1000)
    norm_age = fc.numeric_column("age", normalizer_fn=lambda x: (x - 49.0) / 18.0)
    norm_hours = fc.numeric_column("hours", normalizer_fn=lambda x: (x - 40.0) / 12.0)
    return {
        "linear": [age_buckets, norm_hours, education, occupation, city, cross],
        "dnn": [norm_age, norm_hours, fc.indicator_column(education), fc.indicator_column(occupation),
                fc.embedding_column(city, 8), fc.embedding_column(cross, 8)],
        "trees": [age, hours, fc.indicator_column(education), fc.indicator_column(occupation),
                  fc.indicator_column(fc.categorical_column_with_vocabulary_list("city", CITIES))],
    }


def input_fn(features: dict, labels: np.ndarray, batch_size: int, epochs: int = 1, shuffle: bool = True):
    def fn():
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        if shuffle:
            ds = ds.shuffle(10_000, seed=0)
        return ds.repeat(epochs).batch(batch_size)
    return fn


def folder_size(path: str) -> int:
    return sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(path) for f in files)


def build(name: str, model_dir: str, cols: dict, n_rows: int):
    legacy = tf.keras.optimizers.legacy
    if name == "linear":
        return LinearClassifier(cols["linear"], model_dir=model_dir)
    if name == "dnn":
        return DNNClassifier([64, 32], cols["dnn"], model_dir=model_dir)
    if name == "wide_deep":
        return DNNLinearCombinedClassifier(model_dir=model_dir, linear_feature_columns=cols["linear"],
                                           dnn_feature_columns=cols["dnn"], dnn_hidden_units=[64, 32])
    if name == "wide_deep_tuned":
        return DNNLinearCombinedClassifier(
            model_dir=model_dir, linear_feature_columns=cols["linear"], dnn_feature_columns=cols["dnn"],
            dnn_hidden_units=[64, 32], dnn_optimizer=lambda: legacy.Adagrad(learning_rate=0.05),
            linear_optimizer=lambda: legacy.Ftrl(learning_rate=0.2))
    if name == "boosted_trees":
        return BoostedTreesClassifier(cols["trees"], n_batches_per_layer=1, model_dir=model_dir,
                                      n_trees=100, max_depth=6)
    raise ValueError(name)


def run(name: str, train: tuple, test: tuple, args: argparse.Namespace) -> dict:
    cols = columns()
    model_dir = tempfile.mkdtemp(prefix=f"bench_{name}_")
    est = build(name, model_dir, cols, len(train[1]))  # default RunConfig, as TF's run
    x, y = train
    if name == "boosted_trees":
        fn = input_fn(x, y, batch_size=len(y), epochs=1, shuffle=False)
        seen = len(y)
    else:
        fn = input_fn(x, y, args.batch_size, args.epochs)
        seen = len(y) * args.epochs
    start = time.perf_counter()
    est.train(fn)
    seconds = time.perf_counter() - start
    xt, yt = test
    scores = np.concatenate([
        batch["logistic"].reshape(-1) for batch in
        est.predict(input_fn(xt, yt, 8192, shuffle=False), predict_keys=["logistic"], yield_single_examples=False)
    ])
    result = {
        "model": name,
        "auc": float(roc_auc_score(yt, scores)),
        "train_seconds": seconds,
        "examples_per_s": seen / seconds,
        "model_dir_bytes": folder_size(model_dir),
    }
    shutil.rmtree(model_dir, ignore_errors=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--test-rows", type=int, default=50_000)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--only", nargs="*", default=["linear", "dnn", "wide_deep", "wide_deep_tuned",
                                                      "boosted_trees"])
    parser.add_argument("--repeat", type=int, default=1, help="runs per model; the median is shown")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    import logging

    logging.getLogger("torchestimator").setLevel(logging.ERROR)
    features, labels, logit = make_table(args.rows + args.test_rows, seed=0)
    cut = args.rows
    train = ({k: v[:cut] for k, v in features.items()}, labels[:cut])
    test = ({k: v[cut:] for k, v in features.items()}, labels[cut:])
    oracle = roc_auc_score(labels[cut:], logit[cut:])
    print(f"rows {args.rows} (+{args.test_rows} test), epochs {args.epochs}, batch {args.batch_size}, "
          f"torch threads {args.threads}, device {default_device()}; "
          f"oracle AUC {oracle:.3f}")
    print(f"{'model':<17}{'AUC':>7}{'train s':>9}{'examples/s':>12}{'model_dir':>11}   TF 2.15 (issue)")
    runs: dict[str, list[dict]] = {name: [] for name in args.only}
    for _ in range(max(args.repeat, 1) - 1):
        for name in args.only:
            runs[name].append(run(name, train, test, args))
    results = []
    for name in args.only:
        runs[name].append(run(name, train, test, args))
        ordered = sorted(runs[name], key=lambda r: r["examples_per_s"])
        r = dict(ordered[len(ordered) // 2], runs_examples_per_s=[x["examples_per_s"] for x in runs[name]],
                 runs_auc=[x["auc"] for x in runs[name]])
        results.append(r)
        ref = TF_FIGURES.get(name, {})
        ref_text = ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in ref.items())
        print(f"{name:<17}{r['auc']:>7.3f}{r['train_seconds']:>9.1f}{r['examples_per_s']:>12,.0f}"
              f"{r['model_dir_bytes'] / 1e6:>9.1f}MB   {ref_text}", flush=True)
        if len(runs[name]) > 1:
            speeds, aucs = r["runs_examples_per_s"], r["runs_auc"]
            print(f"{'':<17}runs: {min(speeds):,.0f}-{max(speeds):,.0f} examples/s, "
                  f"AUC {min(aucs):.3f}-{max(aucs):.3f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"oracle_auc": oracle, "args": vars(args), "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
