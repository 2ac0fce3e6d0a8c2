"""The workloads written once against TensorFlow's API: run with `import torchestimator as tf`
(ours) or `import tensorflow as tf` (TensorFlow 2.15, in its own venv). Only numpy besides `tf`.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from typing import Any

import numpy as np

from bench.peers import _data


def _quiet(tf: Any) -> None:
    try:
        tf.get_logger().setLevel("ERROR")
    except Exception:  # noqa: BLE001 - logging is cosmetic
        pass


def _model_dir() -> str:
    return tempfile.mkdtemp(prefix="bench_est_")


def mlp_fit(tf: Any, rows: int) -> dict:
    """Keras fit of the seed MLP (784-512-10, SGD 0.01, categorical crossentropy, accuracy)."""
    x, y = _data.mlp(rows)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(512, activation="relu", input_shape=(784,)),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.01),
                  loss="categorical_crossentropy", metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


def iris_fit(tf: Any, steps: int) -> dict:
    """Keras fit of the Iris DNN (4-10-10-3, ReLU, Adagrad 0.001), `steps` batches of 32."""
    x, y = _data.iris(steps * 32)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(10, activation="relu", input_shape=(4,)),
        tf.keras.layers.Dense(10, activation="relu"),
        tf.keras.layers.Dense(3),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.001),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    start = time.perf_counter()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    seconds = time.perf_counter() - start
    return {"value": steps * 32 / seconds, "unit": "examples/s", "seconds": seconds}


def iris_estimator(tf: Any, steps: int) -> dict:
    """The premade `DNNClassifier(hidden_units=[10, 10], n_classes=3)` (defaults: Adagrad 0.001,
    default RunConfig with its checkpoints), `train(steps=steps)` from a fresh model_dir, fed by
    `from_tensor_slices((dict, labels)).shuffle(1000).repeat().batch(32)`."""
    _quiet(tf)
    x, y = _data.iris(120)
    features = {name: x[:, i] for i, name in enumerate(_data.IRIS_COLUMNS)}
    columns = [tf.feature_column.numeric_column(name) for name in _data.IRIS_COLUMNS]
    model_dir = _model_dir()
    try:
        est = tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns, n_classes=3,
                                         model_dir=model_dir)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((features, y)).shuffle(1000).repeat().batch(32)

        start = time.perf_counter()
        est.train(input_fn, steps=steps)
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    return {"value": steps * 32 / seconds, "unit": "examples/s", "seconds": seconds}


def linreg_fit(tf: Any, steps: int) -> dict:
    """y = W.x + b: Dense(1), SGD, mse, `fit(x, y, batch_size=100, epochs=steps)`; us per step."""
    x, y = _data.linreg()
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
    model.compile(optimizer="sgd", loss="mse")
    start = time.perf_counter()
    model.fit(x, y, batch_size=100, epochs=steps, verbose=0)
    seconds = time.perf_counter() - start
    return {"value": seconds / steps * 1e6, "unit": "us/step", "seconds": seconds}


def wide_deep_columns(tf: Any) -> tuple[list, list]:
    """(linear columns, dnn columns) of the census-shaped table."""
    fc = tf.feature_column
    age = fc.numeric_column("age")
    education = fc.categorical_column_with_vocabulary_list("education", _data.EDUCATION)
    occupation = fc.categorical_column_with_vocabulary_list("occupation", _data.OCCUPATION)
    city = fc.categorical_column_with_hash_bucket("city", _data.CITY_BUCKETS)
    linear = [fc.bucketized_column(age, _data.AGE_BOUNDARIES), education, occupation, city,
              fc.crossed_column([education, occupation], _data.CROSS_BUCKETS)]
    dnn = [fc.numeric_column("age", normalizer_fn=lambda v: (v - 49.0) / 18.0),
           fc.numeric_column("hours", normalizer_fn=lambda v: (v - 40.0) / 12.0),
           fc.indicator_column(education), fc.indicator_column(occupation), fc.embedding_column(city, 8)]
    return linear, dnn


def wide_deep_estimator(tf: Any, rows: int) -> dict:
    """`DNNLinearCombinedClassifier` (defaults: Ftrl wide, Adagrad deep, hidden [64, 32]), one
    epoch of `rows` rows, batch 256, from a shuffled `from_tensor_slices` of the string table."""
    _quiet(tf)
    features, labels = _data.wide_deep(rows)
    linear, dnn = wide_deep_columns(tf)
    model_dir = _model_dir()
    try:
        est = tf.estimator.DNNLinearCombinedClassifier(
            model_dir=model_dir, linear_feature_columns=linear, dnn_feature_columns=dnn,
            dnn_hidden_units=[64, 32])

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(10_000).batch(256)

        start = time.perf_counter()
        est.train(input_fn)
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


def _drain(ds: Any) -> int:
    rows = 0
    for _features, label in ds:
        rows += int(label.shape[0])
    return rows


def read_csv(tf: Any, path: str) -> dict:
    """`tf.data.experimental.make_csv_dataset(path, 1024, label_name='label', num_epochs=1,
    shuffle=False)` to the end; rows per second."""
    start = time.perf_counter()
    ds = tf.data.experimental.make_csv_dataset(path, 1024, label_name="label", num_epochs=1, shuffle=False)
    rows = _drain(ds)
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "rows/s", "seconds": seconds, "rows": rows}


def read_parquet(tf: Any, path: str) -> dict:
    """`tf.data.experimental.make_parquet_dataset(path, 1024, label_name='label', num_epochs=1,
    shuffle=False)` to the end (ours only: TensorFlow has no Parquet reader)."""
    start = time.perf_counter()
    ds = tf.data.experimental.make_parquet_dataset(path, 1024, label_name="label", num_epochs=1,
                                                   shuffle=False)
    rows = _drain(ds)
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "rows/s", "seconds": seconds, "rows": rows}


def scale_data(tf: Any, path: str, rows: int) -> dict:
    """`DNNClassifier([64, 32])` on 10 numeric columns, one epoch streamed from Parquet
    (`make_parquet_dataset`, batch 1024, no shuffle); seconds for `rows` rows."""
    _quiet(tf)
    columns = [tf.feature_column.numeric_column(f"x{i}") for i in range(10)]
    model_dir = _model_dir()
    try:
        est = tf.estimator.DNNClassifier([64, 32], columns, model_dir=model_dir)

        def input_fn():
            return tf.data.experimental.make_parquet_dataset(path, 1024, label_name="label",
                                                             num_epochs=1, shuffle=False)

        start = time.perf_counter()
        est.train(input_fn)
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    return {"value": seconds, "unit": "s", "seconds": seconds, "rows": rows}


def hidden_for(params: int, features: int = 10) -> int:
    """Width h of a [h, h] DNN on `features` inputs with about `params` parameters (2 classes)."""
    # params = (features + 1) h + (h + 1) h + (h + 1) = h^2 + (features + 3) h + 1
    b = features + 3
    return max(1, round((-b + (b * b + 4 * (params - 1)) ** 0.5) / 2))


def scale_model(tf: Any, params: int, steps: int) -> dict:
    """`DNNClassifier([h, h])` with about `params` parameters, `train(steps=steps)` at batch 256
    from memory; seconds per step (checkpoints of the default RunConfig included)."""
    _quiet(tf)
    h = hidden_for(params)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4096, 10)).astype(np.float32)
    y = (x.sum(1) > 0).astype(np.int64)
    features = {f"x{i}": x[:, i] for i in range(10)}
    columns = [tf.feature_column.numeric_column(f"x{i}") for i in range(10)]
    model_dir = _model_dir()
    try:
        est = tf.estimator.DNNClassifier([h, h], columns, model_dir=model_dir)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((features, y)).repeat().batch(256)

        start = time.perf_counter()
        est.train(input_fn, steps=steps)
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    real = h * h + 13 * h + 1
    return {"value": seconds / steps, "unit": "s/step", "seconds": seconds, "params": real}


JOBS = {
    "mlp/keras_fit": mlp_fit,
    "iris/keras_fit": iris_fit,
    "iris/estimator": iris_estimator,
    "linreg/keras_fit": linreg_fit,
    "wide_deep/estimator": wide_deep_estimator,
    "pipeline/csv": read_csv,
    "pipeline/parquet": read_parquet,
    "scale/data": scale_data,
    "scale/model": scale_model,
}
