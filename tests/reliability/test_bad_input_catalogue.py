"""The bad-input catalogue: one row per mistake a user makes, each asserting the exception type,
that the message names the offending column / key / argument / file (and line where there is
one), and, for Estimator rows, that `model_dir` is byte-for-byte unchanged when the failure comes
at or before the first step. The same rows, with their messages, are the table in
docs/troubleshooting.md (a test keeps the two in step)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "troubleshooting.md")
RNG = np.random.default_rng(4)
X = RNG.normal(size=(8, 2)).astype(np.float32)
Y3 = np.array([0, 1, 2, 0, 1, 2, 0, 1], dtype=np.int64)


@dataclass
class Row:
    id: str
    area: str
    run: Callable[[str], object]  # takes a fresh tmp dir
    error: type | tuple
    names: tuple[str, ...]  # substrings the message must contain ({tmp} is the tmp dir)
    model_dir: bool = False  # the row trains into <tmp>/model: it must stay unchanged
    host_names: tuple[str, ...] = ()  # named too where values are checked at once (the CPU; an
    # accelerator defers the check and reads it back later, without the position)


def _csv(tmp: str, text: str, name: str = "data.csv") -> str:
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def _consume(ds) -> None:
    for _ in ds:
        pass


def _csv_ds(tmp: str, text: str, **kwargs) -> None:
    kwargs.setdefault("batch_size", 2)
    kwargs.setdefault("num_epochs", 1)
    kwargs.setdefault("shuffle", False)
    _consume(tf.data.experimental.make_csv_dataset(_csv(tmp, text), **kwargs))


def _parquet(tmp: str) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(tmp, "data.parquet")
    pq.write_table(pa.table({"a": [1.0, 2.0], "b": ["x", "y"]}), path)
    return path


def _parquet_types_differ(tmp: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": [1.0, 2.0]}), os.path.join(tmp, "1.parquet"))
    pq.write_table(pa.table({"a": ["x", "y"]}), os.path.join(tmp, "2.parquet"))
    tf.data.experimental.make_parquet_dataset(os.path.join(tmp, "*.parquet"), 2)


def _no_such_method(features, labels):
    return {"x": features["x"].no_such_method()}, labels


def _no_such_method_x(features):
    return features["x"].no_such_method()


def _fc(columns, features) -> object:
    return tf.keras.layers.DenseFeatures(columns)(features)


def _num(name: str = "x", **kwargs):
    return tf.feature_column.numeric_column(name, **kwargs)


def _train(tmp: str, est_fn: Callable[[str], object], input_fn: Callable, steps: int = 1) -> None:
    est = est_fn(os.path.join(tmp, "model"))
    est.train(input_fn, steps=steps)


def _xy_input(x=X, y=Y3, key: str = "x") -> Callable:
    return lambda: tf.data.Dataset.from_tensor_slices(({key: x}, y)).batch(4)


def _dnn(model_dir: str, **kwargs):
    kwargs.setdefault("hidden_units", [4])
    kwargs.setdefault("feature_columns", [_num("x", shape=(2,))])
    kwargs.setdefault("n_classes", 3)
    return tf.estimator.DNNClassifier(model_dir=model_dir, **kwargs)


def _keras_model(compiled: bool = True):
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))])
    if compiled:
        model.compile("sgd", "sparse_categorical_crossentropy")
    return model


def _tf_config(value: str) -> object:
    old = os.environ.get("TF_CONFIG")
    os.environ["TF_CONFIG"] = value
    try:
        return tf.estimator.RunConfig()
    finally:
        if old is None:
            del os.environ["TF_CONFIG"]
        else:
            os.environ["TF_CONFIG"] = old


def _model_fn_returning(value):
    def model_fn(features, labels, mode):
        tf.keras.layers.Dense(1)(features["x"])
        return value
    return model_fn


def _spec_without_train_op(features, labels, mode):
    logits = tf.keras.layers.Dense(1)(features["x"])
    return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_mean(logits))


def _saved_keras(tmp: str) -> str:
    path = os.path.join(tmp, "m.keras")
    _keras_model().save(path)
    return path


ROWS = [
    # ---------------------------------------------------------------- CSV / Parquet readers
    Row("csv-missing-file", "CSV reader",
        lambda t: _consume(tf.data.experimental.make_csv_dataset(os.path.join(t, "nope.csv"), 2)),
        (FileNotFoundError, ValueError), ("nope.csv",)),
    Row("csv-label-not-a-column", "CSV reader",
        lambda t: _csv_ds(t, "a,b\n1,2\n", label_name="zz"), ValueError, ("zz", "a", "b")),
    Row("csv-bad-number", "CSV reader",
        lambda t: _csv_ds(t, "a,b\n1,2\n3,oops\n", column_defaults=[tf.float32, tf.float32]),
        ValueError, ("data.csv:3", "'b'", "oops")),
    Row("csv-too-many-fields", "CSV reader",
        lambda t: _csv_ds(t, "a,b\n1,2\n3,4,5\n"), ValueError, ("data.csv:3", "2 fields", "3")),
    Row("csv-defaults-count", "CSV reader",
        lambda t: _csv_ds(t, "a,b\n1,2\n", column_defaults=[0.0]), ValueError,
        ("column_defaults", "2")),
    Row("csv-select-unknown-column", "CSV reader",
        lambda t: _csv_ds(t, "a,b\n1,2\n", select_columns=["c"]), ValueError, ("c", "select_columns")),
    Row("csv-batch-size-zero", "CSV reader",
        lambda t: _csv_ds(t, "a\n1\n", batch_size=0), ValueError, ("batch_size", "0")),
    Row("parquet-missing-file", "Parquet reader",
        lambda t: _consume(tf.data.experimental.make_parquet_dataset(os.path.join(t, "no.parquet"), 2)),
        (FileNotFoundError, ValueError), ("no.parquet",)),
    Row("parquet-not-parquet", "Parquet reader",
        lambda t: _consume(tf.data.experimental.make_parquet_dataset(_csv(t, "a\n1\n", "x.parquet"), 2)),
        (ValueError, OSError), ("x.parquet",)),
    Row("parquet-label-missing", "Parquet reader",
        lambda t: _consume(tf.data.experimental.make_parquet_dataset(_parquet(t), 2, label_name="y")),
        ValueError, ("y", "a", "b")),
    Row("parquet-column-types-differ", "Parquet reader",
        _parquet_types_differ, ValueError,
        ("'a'", "{tmp}/1.parquet", "{tmp}/2.parquet", "double", "string")),
    # ---------------------------------------------------------------- tf.data transformations
    Row("slices-different-lengths", "tf.data",
        lambda t: tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4))), ValueError,
        ("3", "4")),
    Row("batch-size-zero", "tf.data",
        lambda t: tf.data.Dataset.range(4).batch(0), ValueError, ("batch_size", "0")),
    Row("shuffle-buffer-zero", "tf.data",
        lambda t: tf.data.Dataset.range(4).shuffle(0), ValueError, ("buffer_size", "0")),
    Row("take-not-a-number", "tf.data",
        lambda t: tf.data.Dataset.range(4).take("2"), (TypeError, ValueError), ("count",)),
    Row("shard-index-out-of-range", "tf.data",
        lambda t: tf.data.Dataset.range(4).shard(2, 2), ValueError, ("index", "2")),
    Row("shard-zero-shards", "tf.data",
        lambda t: tf.data.Dataset.range(4).shard(0, 0), ValueError, ("num_shards", "0")),
    Row("generator-breaks-signature", "tf.data",
        lambda t: _consume(tf.data.Dataset.from_generator(
            lambda: iter([np.zeros(3, np.float32)]),
            output_signature=tf.TensorSpec((2,), tf.float32))),
        (ValueError, TypeError), ("(2,)", "(3,)")),
    Row("map-function-raises", "tf.data",
        lambda t: _consume(tf.data.Dataset.from_tensor_slices({"a": X}).map(lambda d: d["nokey"])),
        KeyError, ("nokey",)),
    Row("map-function-attribute-error", "tf.data",
        lambda t: _consume(tf.data.Dataset.from_tensor_slices({"x": X}).map(_no_such_method_x)),
        AttributeError, ("no_such_method",)),
    Row("repeat-negative-count", "tf.data",
        lambda t: tf.data.Dataset.range(4).repeat(-2), ValueError, ("count", "-2")),
    # ---------------------------------------------------------------- feature columns
    Row("numeric-negative-shape", "feature columns",
        lambda t: _num("x", shape=(-1,)), ValueError, ("x", "shape")),
    Row("numeric-default-wrong-shape", "feature columns",
        lambda t: _num("x", shape=(2,), default_value=(1.0, 2.0, 3.0)), ValueError,
        ("x", "default_value")),
    Row("bucketized-unsorted-boundaries", "feature columns",
        lambda t: tf.feature_column.bucketized_column(_num("x"), [3.0, 1.0]), ValueError,
        ("boundaries", "sorted")),
    Row("vocab-list-duplicates", "feature columns",
        lambda t: tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "a"]),
        ValueError, ("c", "a")),
    Row("vocab-file-missing", "feature columns",
        lambda t: _fc([tf.feature_column.indicator_column(
            tf.feature_column.categorical_column_with_vocabulary_file("c", os.path.join(t, "v.txt")))],
            {"c": np.array(["a"], dtype=object)}),
        (FileNotFoundError, ValueError, OSError), ("v.txt",)),
    Row("hash-bucket-size-zero", "feature columns",
        lambda t: tf.feature_column.categorical_column_with_hash_bucket("h", 0), ValueError,
        ("h", "hash_bucket_size")),
    Row("embedding-dimension-zero", "feature columns",
        lambda t: tf.feature_column.embedding_column(
            tf.feature_column.categorical_column_with_identity("i", 4), 0), ValueError,
        ("dimension",)),
    Row("crossed-one-key", "feature columns",
        lambda t: tf.feature_column.crossed_column(["a"], 10), ValueError, ("keys",)),
    Row("dense-features-missing-key", "feature columns",
        lambda t: _fc([_num("age")], {"agee": np.zeros((2, 1), np.float32)}), (KeyError, ValueError),
        ("age", "agee")),
    Row("numeric-given-strings", "feature columns",
        lambda t: _fc([_num("x")], {"x": np.array([["a"], ["b"]], dtype=object)}),
        (ValueError, TypeError), ("x",)),
    Row("identity-out-of-range", "feature columns",
        lambda t: _fc([tf.feature_column.indicator_column(
            tf.feature_column.categorical_column_with_identity("i", 3))],
            {"i": np.array([[1], [7]], dtype=np.int64)}),
        (ValueError, IndexError), ("i", "7", "3")),
    Row("indicator-of-numeric", "feature columns",
        lambda t: tf.feature_column.indicator_column(_num("x")), (TypeError, ValueError), ("x",)),
    # ---------------------------------------------------------------- input_fn and labels
    Row("input-fn-returns-list", "input_fn",
        lambda t: _train(t, _dnn, lambda: [X, Y3]), (ValueError, TypeError), ("input_fn",),
        model_dir=True),
    Row("input-fn-missing-feature", "input_fn",
        lambda t: _train(t, _dnn, _xy_input(key="z")), (KeyError, ValueError), ("x",),
        model_dir=True),
    Row("input-fn-raises", "input_fn",
        lambda t: _train(t, _dnn, lambda: 1 / 0), ZeroDivisionError, ("division",), model_dir=True),
    Row("input-fn-map-attribute-error", "input_fn",
        lambda t: _train(t, _dnn, lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y3))
                         .map(_no_such_method).batch(4)),
        AttributeError, ("no_such_method",), model_dir=True),
    Row("labels-missing-in-train", "labels",
        lambda t: _train(t, _dnn, lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(4)),
        ValueError, ("labels",), model_dir=True),
    Row("label-out-of-range", "labels",
        lambda t: _train(t, _dnn, _xy_input(y=np.array([0, 1, 2, 5, 0, 1, 2, 0]))), ValueError,
        ("5", "n_classes"), model_dir=True),
    Row("label-nan", "labels",
        lambda t: _train(t, _dnn, _xy_input(y=np.array([0, 1, 2, np.nan, 0, 1, 2, 0],
                                                       np.float32))),
        ValueError, ("Labels contain NaN",), model_dir=True, host_names=("position 3",)),
    Row("labels-wrong-shape", "labels",
        lambda t: _train(t, _dnn, _xy_input(y=np.zeros((8, 3), np.int64))), ValueError,
        ("labels", "shape"), model_dir=True),
    Row("string-labels-without-vocabulary", "labels",
        lambda t: _train(t, _dnn, _xy_input(y=np.array(["a", "b"] * 4, dtype=object))),
        (ValueError, TypeError), ("label_vocabulary",), model_dir=True),
    Row("label-not-in-vocabulary", "labels",
        lambda t: _train(t, lambda d: _dnn(d, label_vocabulary=["a", "b", "c"]),
                         _xy_input(y=np.array(["a", "b", "c", "q"] * 2, dtype=object))),
        ValueError, ("q",), model_dir=True),
    # ---------------------------------------------------------------- Keras
    Row("compile-unknown-optimizer", "Keras compile",
        lambda t: _keras_model(False).compile("sgdd", "mse"), ValueError, ("sgdd",)),
    Row("compile-unknown-loss", "Keras compile",
        lambda t: _keras_model(False).compile("sgd", "msee"), ValueError, ("msee",)),
    Row("compile-unknown-metric", "Keras compile",
        lambda t: (lambda m: (m.compile("sgd", "mse", metrics=["acuracy"]), m.fit(X, Y3, verbose=0)))(
            _keras_model(False)), ValueError, ("acuracy", "accuracy")),
    Row("fit-before-compile", "Keras fit",
        lambda t: _keras_model(False).fit(X, Y3, verbose=0), RuntimeError, ("compile",)),
    Row("fit-x-y-lengths-differ", "Keras fit",
        lambda t: _keras_model().fit(X, Y3[:5], verbose=0), ValueError, ("8", "5")),
    Row("fit-wrong-feature-count", "Keras fit",
        lambda t: _keras_model().fit(np.zeros((8, 5), np.float32), Y3, verbose=0), ValueError,
        ("sequential", "(None, 2)", "(8, 5)")),
    Row("predict-wrong-rank", "Keras predict",
        lambda t: tf.keras.Sequential([tf.keras.layers.Conv2D(2, 3, input_shape=(8, 8, 1))]).predict(
            np.zeros((2, 8), np.float32), verbose=0), ValueError,  # (2, 8, 8) gains its
        ("sequential", "(None, 8, 8, 1)", "(2, 8)")),  # channel axis, as in Keras 2.15
    Row("dense-units-zero", "Keras layers",
        lambda t: tf.keras.layers.Dense(0), ValueError, ("units", "0")),
    Row("dense-unknown-activation", "Keras layers",
        lambda t: tf.keras.layers.Dense(2, activation="relux"), ValueError, ("relux",)),
    Row("fit-empty-dataset", "Keras fit",
        lambda t: _keras_model().fit(tf.data.Dataset.from_tensor_slices((X, Y3)).take(0).batch(2),
                                     verbose=0), ValueError, ("Empty logs", "no batches")),
    Row("evaluate-empty-dataset", "Keras evaluate",
        lambda t: _keras_model().evaluate(
            tf.data.Dataset.from_tensor_slices((X, Y3)).take(0).batch(2), verbose=0), ValueError,
        ("evaluate()", "no batches")),
    Row("validation-split-on-dataset", "Keras fit",
        lambda t: _keras_model().fit(tf.data.Dataset.from_tensor_slices((X, Y3)).batch(2),
                                     validation_split=0.2, verbose=0), ValueError,
        ("validation_split",)),
    Row("dropout-rate-out-of-range", "Keras layers",
        lambda t: tf.keras.layers.Dropout(1.5), ValueError, ("rate", "1.5")),
    # ---------------------------------------------------------------- model loading
    Row("load-model-missing-file", "model loading",
        lambda t: tf.keras.models.load_model(os.path.join(t, "none.keras")),
        (FileNotFoundError, OSError, ValueError), ("none.keras",)),
    Row("load-model-not-an-archive", "model loading",
        lambda t: tf.keras.models.load_model(_csv(t, "hello", "bad.keras")), (ValueError, OSError),
        ("bad.keras",)),
    Row("load-weights-shape-mismatch", "model loading",
        lambda t: (lambda m: (m.save_weights(os.path.join(t, "w.weights.h5")),
                              tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(2,))])
                              .load_weights(os.path.join(t, "w.weights.h5"))))(_keras_model()),
        ValueError, ("w.weights.h5",)),
    Row("load-weights-missing-file", "model loading",
        lambda t: _keras_model().load_weights(os.path.join(t, "nothing.weights.h5")),
        (FileNotFoundError, OSError, ValueError), ("nothing.weights.h5",)),
    Row("warm-start-missing-checkpoint", "model loading",
        lambda t: _train(t, lambda d: _dnn(d, warm_start_from=os.path.join(t, "nowhere")),
                         _xy_input()),
        (ValueError, FileNotFoundError), ("nowhere",), model_dir=True),
    # ---------------------------------------------------------------- RunConfig / TF_CONFIG
    Row("tf-config-not-json", "RunConfig / TF_CONFIG",
        lambda t: _tf_config("{not json"), ValueError, ("TF_CONFIG",)),
    Row("tf-config-task-not-in-cluster", "RunConfig / TF_CONFIG",
        lambda t: _tf_config(json.dumps({"cluster": {"worker": ["a:1"]},
                                         "task": {"type": "chief", "index": 0}})),
        ValueError, ("chief",)),
    Row("tf-config-index-out-of-range", "RunConfig / TF_CONFIG",
        lambda t: _tf_config(json.dumps({"cluster": {"chief": ["a:1"], "worker": ["b:1"]},
                                         "task": {"type": "worker", "index": 3}})),
        ValueError, ("task_id", "3", "worker", "TF_CONFIG")),
    Row("run-config-steps-and-secs", "RunConfig / TF_CONFIG",
        lambda t: tf.estimator.RunConfig(save_checkpoints_steps=10, save_checkpoints_secs=10),
        ValueError, ("save_checkpoints_steps", "save_checkpoints_secs")),
    Row("run-config-negative-keep-max", "RunConfig / TF_CONFIG",
        lambda t: tf.estimator.RunConfig(keep_checkpoint_max=-1), ValueError,
        ("keep_checkpoint_max",)),
    Row("run-config-unknown-argument", "RunConfig / TF_CONFIG",
        lambda t: tf.estimator.RunConfig(save_checkpoint_steps=10), TypeError,
        ("save_checkpoint_steps",)),
    # ---------------------------------------------------------------- estimator constructors
    Row("dnn-without-hidden-units", "estimator constructors",
        lambda t: tf.estimator.DNNClassifier(feature_columns=[_num()]), TypeError, ("hidden_units",)),
    Row("dnn-one-class", "estimator constructors",
        lambda t: _dnn(None, n_classes=1), ValueError, ("n_classes", "1")),
    Row("linear-columns-not-columns", "estimator constructors",
        lambda t: tf.estimator.LinearClassifier(feature_columns=["age"]), (ValueError, TypeError),
        ("age",)),
    Row("model-fn-extra-argument", "estimator constructors",
        lambda t: tf.estimator.Estimator(lambda features, labels, mode, extra: None),
        ValueError, ("extra",)),
    Row("model-fn-returns-not-a-spec", "estimator model_fn",
        lambda t: _train(t, lambda d: tf.estimator.Estimator(_model_fn_returning({"loss": 1}), d),
                         _xy_input()),
        (TypeError, ValueError), ("EstimatorSpec",), model_dir=True),
    Row("spec-train-without-train-op", "estimator model_fn",
        lambda t: _train(t, lambda d: tf.estimator.Estimator(_spec_without_train_op, d), _xy_input()),
        ValueError, ("train_op",), model_dir=True),
    Row("train-steps-and-max-steps", "estimator train",
        lambda t: _dnn(os.path.join(t, "model")).train(_xy_input(), steps=2, max_steps=4), ValueError,
        ("steps", "max_steps"), model_dir=True),
    Row("evaluate-steps-zero", "estimator evaluate",
        lambda t: _dnn(os.path.join(t, "model")).evaluate(_xy_input(), steps=0), ValueError,
        ("steps",), model_dir=True),
    Row("dnn-bad-optimizer-name", "estimator constructors",
        lambda t: _dnn(None, optimizer="Adagradd"), ValueError, ("Adagradd",)),
    Row("boosted-trees-n-batches", "estimator constructors",
        lambda t: tf.estimator.BoostedTreesClassifier([_num()], n_batches_per_layer=0), ValueError,
        ("n_batches_per_layer",)),
    # ---------------------------------------------------------------- core ops
    Row("reshape-element-count", "core ops",
        lambda t: tf.reshape(torch.zeros(6), [4, 2]), ValueError, ("6", "8")),
    Row("add-mixed-dtypes", "core ops",
        lambda t: tf.add(torch.zeros(2), torch.zeros(2, dtype=torch.float64)), ValueError,
        ("float32", "float64")),
    Row("matmul-shapes", "core ops",
        lambda t: tf.matmul(torch.zeros(2, 3), torch.zeros(4, 5)), ValueError, ("[2, 3]", "[4, 5]")),
    Row("variable-assign-shape", "core ops",
        lambda t: tf.Variable(torch.zeros(2)).assign(torch.zeros(3)), ValueError, ("[3]", "[2]")),
]


# ---------------------------------------------------------------- TFRecord, exports, serving
_EXPORT: dict[str, str] = {}


def _tfrecord(tmp: str, compression: str = "", name: str = "data.tfrecord") -> str:
    path = os.path.join(tmp, name)
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression)) as writer:
        writer.write(b"hello")
        writer.write(b"world")
    return path


def _damaged(path: str, how: str) -> str:
    with open(path, "rb") as f:
        data = f.read()
    data = data[:-3] if how == "truncate" else data[:14] + bytes([data[14] ^ 1]) + data[15:]
    with open(path, "wb") as f:
        f.write(data)
    return path


def _records(path: str, compression: str = "") -> None:
    _consume(tf.data.TFRecordDataset(path, compression_type=compression))


def _export(tmp: str | None = None) -> str:
    """A DNNRegressor export (raw receiver, float input 'x'), made once; copied into `tmp`."""
    import shutil
    import tempfile

    if "dir" not in _EXPORT:
        root = tempfile.mkdtemp(prefix="catalogue-export-")
        est = tf.estimator.DNNRegressor([4], [_num()], model_dir=os.path.join(root, "m"))
        est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X[:, 0]}, X[:, 1])).batch(4),
                  steps=1)
        _EXPORT["dir"] = os.fsdecode(est.export_saved_model(
            os.path.join(root, "e"), tf.estimator.export.build_raw_serving_input_receiver_fn(
                {"x": tf.TensorSpec([None], tf.float32)})))
    if tmp is None:
        return _EXPORT["dir"]
    return shutil.copytree(_EXPORT["dir"], os.path.join(tmp, "export"))


def _damaged_export(tmp: str, name: str, remove: bool = False) -> None:
    path = os.path.join(_export(tmp), name)
    if remove:
        os.remove(path)
    else:
        _damaged(path, "flip")
    tf.saved_model.load(os.path.dirname(path))


def _signature(**inputs) -> object:
    return tf.saved_model.load(_export()).signatures["predict"](**inputs)


def _request(path: str, body: object) -> None:
    """A request answered by the server's REST API in-process: raises the RequestError it
    answered with (its status and message)."""
    from torchestimator.serving._errors import RequestError
    from torchestimator.serving._rest import RestApi
    from torchestimator.serving._versions import ModelVersions

    if "api" not in _EXPORT:
        versions = ModelVersions("m", os.path.dirname(_export()), poll_seconds=0)
        versions.start()
        _EXPORT["api"] = RestApi({"m": versions})  # type: ignore[assignment]
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, payload = _EXPORT["api"].handle("POST" if ":" in path else "GET", path, data)
    if status != 200:
        raise RequestError(f"HTTP {status}: {json.loads(payload)['error']}", status)


def _export_with(tmp: str, receiver_fn: Callable) -> None:
    """export_saved_model of the trained model behind `_export()` into `tmp`/exports."""
    model_dir = os.path.join(os.path.dirname(os.path.dirname(_export())), "m")
    est = tf.estimator.DNNRegressor([4], [_num()], model_dir=model_dir)
    est.export_saved_model(os.path.join(tmp, "exports"), receiver_fn)


def _crafted_keras(tmp: str) -> None:
    """Loads a .keras archive whose Lambda names os.system (Keras's CVE-2025-1550 shape)."""
    import zipfile

    from safetensors.torch import save

    config = {"class_name": "Sequential", "config": {"name": "s", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 1], "name": "i"}},
        {"class_name": "Lambda", "config": {"name": "l", "function": "system",
                                            "function_type": "function", "module": "os"}}]}}
    path = os.path.join(tmp, "crafted.keras")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", json.dumps(config))
        archive.writestr("metadata.json", json.dumps({"keras_version": "2.15.0"}))
        archive.writestr("model.weights.safetensors", save({}))
    tf.keras.models.load_model(path)


def _crafted_tfrecord_length(tmp: str) -> None:
    """Reads a TFRecord file whose last record claims 2^63 bytes (with a valid length CRC)."""
    import struct

    from torchestimator.io._tfrecord import masked_crc32c

    path = _tfrecord(tmp)
    header = struct.pack("<Q", 1 << 63)
    with open(path, "ab") as f:
        f.write(header + struct.pack("<I", masked_crc32c(header)) + b"x" * 10)
    _records(path)


def _request_error() -> type:
    from torchestimator.serving._errors import RequestError

    return RequestError


ROWS += [
    Row("tfrecord-corrupt-record", "TFRecord reader",
        lambda t: _records(_damaged(_tfrecord(t), "flip")), tf.errors.DataLossError,
        ("{tmp}/data.tfrecord", "CRC", "byte offset 0")),
    Row("tfrecord-truncated-file", "TFRecord reader",
        lambda t: _records(_damaged(_tfrecord(t), "truncate")), tf.errors.DataLossError,
        ("{tmp}/data.tfrecord", "truncated record", "byte offset 21")),
    Row("tfrecord-gzip-read-uncompressed", "TFRecord reader",
        lambda t: _records(_tfrecord(t, "GZIP")), tf.errors.DataLossError,
        ("{tmp}/data.tfrecord", "check compression_type")),
    Row("tfrecord-plain-read-as-gzip", "TFRecord reader",
        lambda t: _records(_tfrecord(t), "GZIP"), tf.errors.DataLossError,
        ("{tmp}/data.tfrecord", "GZIP")),
    Row("tfrecord-unknown-compression", "TFRecord reader",
        lambda t: _records(_tfrecord(t), "BZ2"), ValueError, ("compression_type", "BZ2")),
    Row("tfrecord-missing-file", "TFRecord reader",
        lambda t: _records(os.path.join(t, "nope.tfrecord")), FileNotFoundError,
        ("{tmp}/nope.tfrecord",)),
    Row("signature-missing-input", "exports",
        lambda t: _signature(), ValueError, ("'predict'", "missing input", "'x'")),
    Row("signature-unexpected-input", "exports",
        lambda t: _signature(x=np.zeros(1, np.float32), y=np.zeros(1, np.float32)), ValueError,
        ("'predict'", "unexpected input", "'y'")),
    Row("signature-wrong-dtype", "exports",
        lambda t: _signature(x=np.array(["a"])), TypeError, ("'x'", "float32")),
    Row("signature-wrong-shape", "exports",
        lambda t: _signature(x=np.zeros((2, 2), np.float32)), ValueError, ("'x'", "[2, 2]")),
    Row("export-damaged-variables", "exports",
        lambda t: _damaged_export(t, "variables.safetensors"), ValueError,
        ("{tmp}/export/variables.safetensors", "checksum", "damaged")),
    Row("export-missing-program", "exports",
        lambda t: _damaged_export(t, "program.json", remove=True), FileNotFoundError,
        ("{tmp}/export/program.json", "missing")),
    Row("export-not-an-export-dir", "exports",
        lambda t: tf.saved_model.load(t), FileNotFoundError, ("{tmp}", "saved_model.json")),
    Row("receiver-feature-spec-not-a-dict", "exports",
        lambda t: tf.estimator.export.build_parsing_serving_input_receiver_fn("x")(), ValueError,
        ("feature_spec",)),
    Row("receiver-missing-feature", "exports",
        lambda t: _export_with(t, tf.estimator.export.build_raw_serving_input_receiver_fn(
            {"y": tf.TensorSpec([None])})), ValueError, ("'x'", "['y']")),
    Row("receiver-fn-returns-a-dict", "exports",
        lambda t: _export_with(t, lambda: {"x": 1}), ValueError,
        ("serving_input_receiver_fn", "dict")),
    Row("serving-body-not-json", "serving requests",
        lambda t: _request("/v1/models/m:predict", b"{instances: [1]}"), _request_error(),
        ("HTTP 400", "JSON Parse error", "offset")),
    Row("serving-missing-named-input", "serving requests",
        lambda t: _request("/v1/models/m:predict", {"signature_name": "predict", "inputs": {}}),
        _request_error(), ("HTTP 400", "Missing named input: x")),
    Row("serving-wrong-json-type", "serving requests",
        lambda t: _request("/v1/models/m:predict", {"signature_name": "predict",
                                                    "instances": ["a"]}),
        _request_error(), ("HTTP 400", "input 'x'", "float32")),
    Row("serving-unknown-signature", "serving requests",
        lambda t: _request("/v1/models/m:predict", {"instances": [1.0]}), _request_error(),
        ("HTTP 400", "serving_default", "predict")),
    Row("serving-unknown-version", "serving requests",
        lambda t: _request("/v1/models/m/versions/7:predict", {"instances": [1.0]}),
        _request_error(), ("HTTP 404", "Specific(m, 7)")),
    Row("serving-nested-too-deep", "serving requests",
        lambda t: _request("/v1/models/m:predict", b'{"instances": ' + b"[" * 500 + b"]" * 500
                           + b"}"), _request_error(), ("HTTP 400", "limit of 100 levels")),
    Row("serving-lone-surrogate", "serving requests",
        lambda t: _request("/v1/models/m:predict", b'{"instances": ["\\ud800"]}'),
        _request_error(), ("HTTP 400", "lone UTF-16 surrogate")),
    Row("serving-huge-integer", "serving requests",
        lambda t: _request("/v1/models/m:predict", b'{"instances": [' + b"1" * 5000 + b"]}"),
        _request_error(), ("HTTP 400", "4300 digits")),
    Row("keras-file-lambda-names-a-module", "loading files",
        _crafted_keras, ValueError, ("{tmp}/crafted.keras", 'Lambda layer "l"', "'os.system'",
                                     "safe_mode=False")),
    Row("tfrecord-crafted-length", "loading files",
        _crafted_tfrecord_length, tf.errors.DataLossError,
        ("{tmp}/data.tfrecord", "9223372036854775808 bytes", "byte offset 42")),
]



def _tree_digest(path: str) -> dict[str, str]:
    out = {}
    if not os.path.isdir(path):
        return out
    for root, _, files in os.walk(path):
        for name in files:
            if name == ".lock":
                continue  # the advisory lock file: its content is the holder, empty when free
            full = os.path.join(root, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, path)] = hashlib.sha256(f.read()).hexdigest()
    return out


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input(row: Row, tmp_path):
    tmp = str(tmp_path)
    model_dir = os.path.join(tmp, "model")
    before = _tree_digest(model_dir)
    with pytest.raises(row.error) as caught:
        row.run(tmp)
    message = str(caught.value)
    immediate = not loop.defers_checks(loop.default_device())
    for name in row.names + (row.host_names if immediate else ()):
        assert name.format(tmp=tmp) in message, f"{row.id}: {name!r} not in message: {message}"
    if row.model_dir:
        assert _tree_digest(model_dir) == before, f"{row.id}: model_dir changed"


def test_catalogue_size_and_docs_table():
    assert len(ROWS) >= 60
    assert len({r.id for r in ROWS}) == len(ROWS)
    with open(DOCS, encoding="utf-8") as f:
        documented = set(re.findall(r"^\| `([a-z0-9-]+)` \|", f.read(), flags=re.M))
    missing = [r.id for r in ROWS if r.id not in documented]
    assert not missing, f"rows missing from docs/troubleshooting.md: {missing}"


def write_docs_table(path: str = DOCS) -> None:
    """Runs every row and writes docs/troubleshooting.md with the message each gives
    (`python tests/reliability/test_bad_input_catalogue.py`)."""
    import tempfile

    lines = [
        "# Troubleshooting: the errors you get for common mistakes",
        "",
        "Each row is a mistake and the error torchestimator raises for it, exactly as a test",
        "(`tests/reliability/test_bad_input_catalogue.py`) checks it: the message names the",
        "offending column, key, argument or file (and line), and an Estimator's `model_dir` is",
        "left byte-for-byte unchanged when the mistake is caught at or before the first step.",
        "`<dir>` stands for the directory of the files involved.",
        "",
        "| mistake | where | exception | message |",
        "|---|---|---|---|",
    ]
    for row in ROWS:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                row.run(tmp)
            except Exception as error:  # noqa: BLE001 - recording what each row raises
                message = str(error).replace(tmp, "<dir>")
                kind = type(error).__name__
            else:
                raise AssertionError(f"{row.id} raised nothing")
        message = " ".join(message.split()).replace("|", "\\|")
        if len(message) > 240:
            message = message[:237] + "..."
        lines.append(f"| `{row.id}` | {row.area} | `{kind}` | {message} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_docs_table()
