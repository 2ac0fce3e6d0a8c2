"""Shared data and estimators for the export tests: small, seeded, fast."""

from __future__ import annotations

import numpy as np

import torchestimator as tf

N = 48
RNG = np.random.default_rng(0)
DATA = {
    "x": RNG.normal(size=N).astype("float32"),
    "kind": np.array(RNG.choice(["a", "b", "c"], N), dtype=object),
    "n": RNG.integers(0, 5, N).astype("int64"),
    "city": np.array(RNG.choice(["p", "q", "r", "s"], N), dtype=object),
}
Y_CLASS = (DATA["x"] > 0).astype("int64")
Y_MULTI = np.digitize(DATA["x"], [-0.5, 0.5]).astype("int64")
Y_REG = (DATA["x"] * 2 + 1).astype("float32")

RAW_SPECS = {
    "x": tf.TensorSpec([None], tf.float32),
    "kind": tf.TensorSpec([None], tf.string),
    "n": tf.TensorSpec([None], tf.int64),
    "city": tf.TensorSpec([None], tf.string),
}


def columns():
    """(dense columns, linear columns) covering numeric, vocabulary, identity, hashed,
    crossed, bucketized, embedding and indicator columns."""
    fc = tf.feature_column
    x = fc.numeric_column("x")
    kind = fc.categorical_column_with_vocabulary_list("kind", ["a", "b", "c"])
    n = fc.categorical_column_with_identity("n", 5)
    city = fc.categorical_column_with_hash_bucket("city", 7)
    cross = fc.crossed_column(["kind", "city"], 11)
    bucket = fc.bucketized_column(x, [-1.0, 0.0, 1.0])
    dense = [x, fc.embedding_column(kind, 3), fc.indicator_column(n), bucket,
             fc.embedding_column(city, 2)]
    linear = [x, kind, n, city, cross, bucket]
    return dense, linear


def input_fn(labels, batch_size=16):
    """A repeating input_fn over DATA with `labels`."""
    return lambda: tf.data.Dataset.from_tensor_slices((DATA, labels)).repeat().batch(batch_size)


def rows(start=0, stop=9):
    """Rows [start, stop) of DATA as a features dict of arrays."""
    return {k: v[start:stop] for k, v in DATA.items()}


def predict_batch(estimator, features):
    """Estimator.predict on one batch of `features`: a dict of numpy arrays."""
    size = len(next(iter(features.values())))
    return next(estimator.predict(
        lambda: tf.data.Dataset.from_tensor_slices(features).batch(size), yield_single_examples=False))
