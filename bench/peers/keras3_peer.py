"""Keras 3 on the torch backend (`KERAS_BACKEND=torch`): the same models and `fit` calls."""

from __future__ import annotations

import os
import time

os.environ["KERAS_BACKEND"] = "torch"

import keras  # noqa: E402
from bench.peers import _data  # noqa: E402


def mlp(rows: int) -> dict:
    x, y = _data.mlp(rows)
    model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(512, activation="relu"),
                              keras.layers.Dense(10, activation="softmax")])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01), loss="categorical_crossentropy",
                  metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


def iris(steps: int) -> dict:
    x, y = _data.iris(steps * 32)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(10, activation="relu"),
                              keras.layers.Dense(10, activation="relu"), keras.layers.Dense(3)])
    model.compile(optimizer=keras.optimizers.Adagrad(learning_rate=0.001),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    start = time.perf_counter()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    seconds = time.perf_counter() - start
    return {"value": steps * 32 / seconds, "unit": "examples/s", "seconds": seconds}


def linreg(steps: int) -> dict:
    x, y = _data.linreg()
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    start = time.perf_counter()
    model.fit(x, y, batch_size=100, epochs=steps, verbose=0)
    seconds = time.perf_counter() - start
    return {"value": seconds / steps * 1e6, "unit": "us/step", "seconds": seconds}


def wide_deep_model() -> keras.Model:
    """Wide (one Embedding(., 1) summed over the 5 id spaces) + deep (numeric, one-hot, city
    embedding -> 64 -> 32 -> 1), as `torch_loop.WideDeep`."""
    ops = keras.ops
    wide_in = keras.Input((5,), dtype="int64", name="wide_ids")
    numeric = keras.Input((2,), name="numeric")
    edu = keras.Input((), dtype="int64", name="edu")
    occ = keras.Input((), dtype="int64", name="occ")
    city = keras.Input((), dtype="int64", name="city")
    wide = ops.sum(keras.layers.Embedding(sum(_data.WIDE_SIZES.values()), 1)(wide_in), axis=1)
    deep = ops.concatenate([numeric, ops.one_hot(edu, len(_data.EDUCATION)),
                            ops.one_hot(occ, len(_data.OCCUPATION)),
                            keras.layers.Embedding(_data.CITY_BUCKETS, 8)(city)], axis=1)
    deep = keras.layers.Dense(64, activation="relu")(deep)
    deep = keras.layers.Dense(32, activation="relu")(deep)
    logit = keras.layers.Add()([wide, keras.layers.Dense(1)(deep)])
    return keras.Model([wide_in, numeric, edu, occ, city], logit)


def wide_deep(rows: int) -> dict:
    start = time.perf_counter()
    features, labels = _data.wide_deep(rows)
    enc = _data.encode_wide_deep(features)
    inputs = [_data.wide_ids(enc), enc["numeric"], enc["edu"], enc["occ"], enc["city"]]
    model = wide_deep_model()
    model.compile(optimizer=keras.optimizers.Adagrad(learning_rate=0.05),
                  loss=keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(inputs, labels.astype("float32").reshape(-1, 1), batch_size=256, epochs=1, verbose=0)
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


JOBS = {"mlp/keras3": mlp, "iris/keras3": iris, "linreg/keras3": linreg, "wide_deep/keras3": wide_deep}
