"""Shared helpers of the migration tests: the fixed inputs of tools/make_tf_fixtures.py and the
Estimators it built, rebuilt here with the same calls."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np

import torchestimator as tf

ROOT = os.path.join(os.path.dirname(__file__), "fixtures", "estimators")
COLORS = ["red", "green", "blue", "black"]


def inputs() -> dict:
    with open(os.path.join(ROOT, "inputs.json")) as f:
        return json.load(f)


def fixture(name: str) -> dict:
    with open(os.path.join(ROOT, name, "fixture.json")) as f:
        return json.load(f)


def predictions(name: str) -> dict[str, np.ndarray]:
    with np.load(os.path.join(ROOT, name, "predictions.npz")) as values:
        return dict(values)


def columns() -> tuple[list, list]:
    """The feature columns of the fixtures (`_columns` in tools/make_tf_fixtures.py)."""
    fc = tf.feature_column
    age = fc.numeric_column("age")
    hours = fc.numeric_column("hours")
    color = fc.categorical_column_with_vocabulary_list("color", COLORS)
    city = fc.categorical_column_with_hash_bucket("city", hash_bucket_size=7)
    age_buckets = fc.bucketized_column(age, boundaries=[25.0, 40.0, 55.0])
    crossed = fc.crossed_column([age_buckets, "color"], hash_bucket_size=11)
    dense = [age, hours, fc.embedding_column(color, dimension=3), fc.indicator_column(city)]
    linear = [age, hours, age_buckets, color, city, crossed]
    return dense, linear


def features(split: str, keys: list[str]) -> dict[str, np.ndarray]:
    raw = inputs()[split]
    out = {}
    for key in keys:
        value = raw[key]
        out[key] = np.array(value, dtype=object if isinstance(value[0][0], str) else np.float32)
    return out


def labels(split: str, kind: str) -> np.ndarray:
    data = inputs()
    if kind == "class":
        return np.array(data[f"{split}_class"], dtype=np.int64)
    return np.array(data[f"{split}_target"], dtype=np.float32)


def copy_model_dir(name: str, target: str) -> str:
    """A copy of fixture `name`'s TF model_dir (the checkpoint files only) in `target`."""
    shutil.copytree(os.path.join(ROOT, name), target,
                    ignore=shutil.ignore_patterns("*.json", "*.npz"))
    return target


def build(name: str, model_dir: str | None, **config_kwargs) -> tf.estimator.Estimator:
    """The Estimator of fixture `name`, built by the same call TF's was."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "custom_model_fn", os.path.join(os.path.dirname(ROOT), "custom_model_fn.py"))
    custom_model_fn = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(custom_model_fn)
    dense, linear = columns()
    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=7, **config_kwargs)
    scope = {"tf": tf, "dense": dense, "linear": linear, "custom_model_fn": custom_model_fn}
    return eval(fixture(name)["call"], {**scope, "config": config})


def predict(estimator: tf.estimator.Estimator, keys: list[str]) -> dict[str, np.ndarray]:
    x = features("test", keys)
    rows = list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(x).batch(5)))
    return {k: np.stack([r[k] for r in rows]) for k in rows[0]}
