"""Writes the TensorFlow fixtures of tests/migration/ (run with TensorFlow 2.15, never in CI).

    ~/anchor-venvs/tf215/bin/python tools/make_tf_fixtures.py [PART ...]

PART is any of `formats`, `estimators`, `keras` (default: all), or `estimators:NAME[,NAME]`
to write some estimator model_dirs again. Each part writes under
tests/migration/fixtures/:

* `formats/`: checkpoints written by TF's own savers, with the values they hold
  (`values.npz`, strings in `strings.json`):
  - `dtypes/model.ckpt`: `tf.compat.v1.train.Saver(sharded=True)` in a graph with two CPU
    devices (two `.data` shards), one variable per dtype TF writes (float16/32/64, bfloat16,
    int8/16/32/64, uint8, bool, complex64, string), a scalar, an empty tensor, and a variable
    partitioned in 3 along axis 0 (`tf.compat.v1.get_variable(partitioner=
    fixed_size_partitioner(3))`, saved as slices of its full name).
  - `object/ckpt-1`: `tf.train.Checkpoint(model=<a Keras model>).save(...)`.
* `estimators/<name>/`: the model_dir of a premade Estimator trained a few steps
  (`.meta` files and events removed), plus `predictions.npz` (TF's predictions on
  the fixed inputs of `inputs.json`); see `ESTIMATORS` below for the TF calls, and
  `fixture.json` (the call, TF's evaluate metrics, and the predictions after 3 more steps
  of TF's own training from that model_dir, in `predictions.npz` as `continued/<key>`).
* `keras/<name>.h5` (`model.save(..., save_format="h5")`), `keras/<name>.weights.h5`
  (`model.save_weights("<name>.weights.h5")`, Keras 3's layout), `keras/<name>_legacy_weights.h5`
  (`model.save_weights("<name>_legacy_weights.h5")`, the legacy layout),
  `keras/<name>_tf_weights/ckpt` (`model.save_weights(..., save_format="tf")`),
  `keras/<name>_savedmodel/` (`model.save(..., save_format="tf")`, less its `saved_model.pb`), `keras/<name>.keras` (Keras 2.15's `model.save(...keras)`)
  for the models of `keras_models()` (trained one epoch), and `keras/<name>.npz`: the inputs
  and TF's predictions.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "migration", "fixtures")


def _fresh(path: str) -> str:
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def make_formats() -> None:
    import tensorflow as tf

    out = _fresh(os.path.join(ROOT, "formats"))
    rng = np.random.default_rng(0)
    values: dict[str, np.ndarray] = {}
    strings: dict[str, list] = {}
    os.makedirs(os.path.join(out, "dtypes"))
    graph = tf.Graph()
    with graph.as_default():
        specs = {
            "float16": (tf.float16, rng.normal(size=(2, 3)).astype(np.float16)),
            "float32": (tf.float32, rng.normal(size=(4, 3)).astype(np.float32)),
            "float64": (tf.float64, rng.normal(size=(5,)).astype(np.float64)),
            "int8": (tf.int8, np.array([-128, 0, 127], np.int8)),
            "int16": (tf.int16, np.array([[-300, 7]], np.int16)),
            "int32": (tf.int32, np.array([1, -2, 2**31 - 1], np.int32)),
            "int64": (tf.int64, np.array([2**40, -5], np.int64)),
            "uint8": (tf.uint8, np.array([0, 200, 255], np.uint8)),
            "bool": (tf.bool, np.array([True, False, True])),
            "complex64": (tf.complex64, np.array([1 + 2j, -3j], np.complex64)),
            "scalar": (tf.float32, np.float32(3.25)),
            "empty": (tf.float32, np.zeros((0, 4), np.float32)),
        }
        variables = []
        for i, (name, (dtype, value)) in enumerate(specs.items()):
            with tf.device(f"/cpu:{i % 2}"):
                variables.append(tf.compat.v1.Variable(value, dtype=dtype, name=f"dtypes/{name}"))
            values[f"dtypes/{name}"] = np.asarray(value)
        bf = rng.normal(size=(3, 2)).astype(np.float32)
        with tf.device("/cpu:1"):
            variables.append(tf.compat.v1.Variable(tf.cast(bf, tf.bfloat16), name="dtypes/bfloat16"))
        words = [b"alpha", b"", b"\x00\xffbytes", "\u00e9t\u00e9".encode()]
        with tf.device("/cpu:0"):
            variables.append(tf.compat.v1.Variable(words, dtype=tf.string, name="dtypes/string"))
            variables.append(tf.compat.v1.Variable(b"one", dtype=tf.string, name="dtypes/string_scalar"))
        strings["dtypes/string"] = [w.hex() for w in words]
        strings["dtypes/string_scalar"] = [b"one".hex()]
        full = rng.normal(size=(7, 3)).astype(np.float32)
        with tf.device("/cpu:0"):
            tf.compat.v1.get_variable(
                "partitioned/embedding", initializer=tf.constant(full), partitioner=tf.compat.v1.fixed_size_partitioner(3)
            )
        values["partitioned/embedding"] = full
        saver = tf.compat.v1.train.Saver(sharded=True)
        config = tf.compat.v1.ConfigProto(device_count={"CPU": 2})
        with tf.compat.v1.Session(graph=graph, config=config) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            values["dtypes/bfloat16"] = sess.run(tf.cast(variables[-3], tf.float32))
            path = saver.save(sess, os.path.join(out, "dtypes", "model.ckpt"), write_meta_graph=False)
    _strip(os.path.dirname(path))
    print("wrote", path, sorted(os.listdir(os.path.dirname(path))))
    np.savez(os.path.join(out, "dtypes", "values.npz"), **values)
    with open(os.path.join(out, "dtypes", "strings.json"), "w") as f:
        json.dump(strings, f, indent=1)

    # An object-based checkpoint (tf.train.Checkpoint over a Keras model and an optimizer).
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="relu", input_shape=(4,)),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam(0.01)
    x = rng.normal(size=(8, 4)).astype(np.float32)
    y = rng.normal(size=(8, 1)).astype(np.float32)
    model.compile(optimizer=optimizer, loss="mse")
    model.fit(x, y, epochs=2, verbose=0)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    path = ckpt.save(os.path.join(out, "object", "ckpt"))
    np.savez(os.path.join(out, "object", "values.npz"),
             **{f"model/{v.name}": v.numpy() for v in model.weights}, x=x, prediction=model.predict(x, verbose=0))
    _strip(os.path.dirname(path))
    print("wrote", path, tf.train.list_variables(path))


def main(argv: list[str]) -> None:
    parts = argv or ["formats", "estimators"]
    if "formats" in parts:
        make_formats()
    if "estimators" in parts:
        make_estimators()
    for part in parts:
        if part.startswith("estimators:"):  # one model_dir again, the others kept
            make_estimators(part.split(":", 1)[1].split(","))
    if "keras" in parts:
        make_keras()


# --------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------

COLORS = ["red", "green", "blue", "black"]
CITIES = ["paris", "tokyo", "lima", "oslo", "cairo", "quito"]


def dataset(n: int, seed: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """Features (`age`, `hours` numbers; `color`, `city` strings), a class label in 0..2 and a
    regression target, the same in TF and in the tests (the tests read inputs.json)."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(18, 70, size=(n, 1)).round(1).astype(np.float32)
    hours = rng.uniform(0, 60, size=(n, 1)).round(1).astype(np.float32)
    color = np.array(COLORS)[rng.integers(0, len(COLORS), size=(n, 1))]
    city = np.array(CITIES)[rng.integers(0, len(CITIES), size=(n, 1))]
    label = ((age[:, 0] > 40).astype(np.int64) + (color[:, 0] == "red")).reshape(n, 1)
    target = (0.05 * age + 0.02 * hours + (color == "blue")).astype(np.float32)
    return {"age": age, "hours": hours, "color": color, "city": city}, label, target


def _columns(tf):  # noqa: ANN001, ANN202
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


# name -> (constructor call as a string evaluated with `tf`, `dense`, `linear` in scope,
#          label kind: "class" or "target")
ESTIMATORS = {
    "dnn_classifier": ("tf.estimator.DNNClassifier(hidden_units=[8, 4], feature_columns=dense, "
                       "n_classes=3, config=config)", "class"),
    "dnn_regressor": ("tf.estimator.DNNRegressor(hidden_units=[6], feature_columns=dense, "
                      "optimizer='Adam', config=config)", "target"),
    "linear_classifier": ("tf.estimator.LinearClassifier(feature_columns=linear, n_classes=3, "
                          "config=config)", "class"),
    "linear_regressor": ("tf.estimator.LinearRegressor(feature_columns=linear, optimizer='Adam', "
                         "config=config)", "target"),
    "dnn_linear_combined_classifier": (
        "tf.estimator.DNNLinearCombinedClassifier(linear_feature_columns=linear, "
        "dnn_feature_columns=dense, dnn_hidden_units=[5], n_classes=3, config=config)", "class"),
    "dnn_linear_combined_regressor": (
        "tf.estimator.DNNLinearCombinedRegressor(linear_feature_columns=linear, "
        "dnn_feature_columns=dense, dnn_hidden_units=[5], config=config)", "target"),
    "baseline_classifier": ("tf.estimator.BaselineClassifier(n_classes=3, config=config)", "class"),
    "baseline_regressor": ("tf.estimator.BaselineRegressor(config=config)", "target"),
    "v1_dnn_classifier": ("tf.compat.v1.estimator.DNNClassifier(hidden_units=[4], "
                          "feature_columns=dense, n_classes=3, config=config)", "class"),
    "custom_model_fn": ("tf.estimator.Estimator(custom_model_fn.make(tf), params={'learning_rate': 0.1}, "
                        "config=config)", "target"),
    "v1_linear_classifier": ("tf.compat.v1.estimator.LinearClassifier(feature_columns=linear, "
                             "n_classes=3, config=config)", "class"),
}
TRAIN_ROWS, TRAIN_STEPS, CONTINUE_STEPS, BATCH = 40, 5, 3, 8


def _strip(model_dir: str) -> None:
    """Keeps what a checkpoint needs (`checkpoint`, `.index`, `.data-*`), with relative paths."""
    for path in glob.glob(os.path.join(model_dir, "**", "*"), recursive=True):
        name = os.path.basename(path)
        if os.path.isdir(path):
            continue
        if name.endswith(".meta") or name.startswith("events.") or name == "graph.pbtxt":
            os.remove(path)
    for sub in glob.glob(os.path.join(model_dir, "eval*")) + [os.path.join(model_dir, "export")]:
        shutil.rmtree(sub, ignore_errors=True)
    index = os.path.join(model_dir, "checkpoint")
    with open(index) as f:
        text = f.read()
    with open(index, "w") as f:
        f.write(text.replace(os.path.abspath(model_dir) + os.sep, "").replace(model_dir + os.sep, ""))


def _predictions(estimator, input_fn) -> dict:  # noqa: ANN001
    out: dict[str, list] = {}
    for row in estimator.predict(input_fn):
        for key, value in row.items():
            if np.asarray(value).dtype.kind in "OSU":
                continue
            out.setdefault(key, []).append(value)
    return {k: np.stack(v) for k, v in out.items()}


def make_estimators(only: list[str] | None = None) -> None:
    import tensorflow as tf

    root = os.path.join(ROOT, "estimators")
    if only is None:
        _fresh(root)
    features, label, target = dataset(TRAIN_ROWS, 0)
    test_features, test_label, test_target = dataset(12, 1)
    with open(os.path.join(root, "inputs.json"), "w") as f:
        json.dump({
            "train": {k: v.tolist() for k, v in features.items()}, "train_class": label.tolist(),
            "train_target": target.tolist(),
            "test": {k: v.tolist() for k, v in test_features.items()}, "test_class": test_label.tolist(),
            "test_target": test_target.tolist(),
            "batch": BATCH, "train_steps": TRAIN_STEPS, "continue_steps": CONTINUE_STEPS,
        }, f)
    dense, linear = _columns(tf)
    sys.path.insert(0, ROOT)
    import custom_model_fn  # noqa: PLC0415 - tests/migration/fixtures/custom_model_fn.py

    summary = {}
    for name, (call, kind) in ESTIMATORS.items():
        if only is not None and name not in only:
            continue
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        model_dir = os.path.join(root, name)
        config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=7, keep_checkpoint_max=1,
                                        save_summary_steps=1000, log_step_count_steps=1000)
        scope = {"tf": tf, "dense": dense, "linear": linear, "custom_model_fn": custom_model_fn}
        estimator = eval(call, {**scope, "config": config})
        labels = label if kind == "class" else target
        # TF 2.15's Baseline estimators fail on string features they do not use (the iterator
        # is reported uninitialized) and on two numeric ones: they get `age` only.
        keys = ["age"] if name.startswith("baseline") else sorted(features)
        if name == "custom_model_fn":
            keys = ["age", "hours"]
        x_train = {k: features[k] for k in keys}
        x_test = {k: test_features[k] for k in keys}

        def train_fn(x=x_train, y=labels):  # noqa: ANN001, ANN202
            return tf.data.Dataset.from_tensor_slices((dict(x), y)).batch(BATCH)

        def test_fn(x=x_test):  # noqa: ANN001, ANN202
            return tf.data.Dataset.from_tensor_slices(dict(x)).batch(5)

        def eval_fn(x=x_test, y=test_label if kind == "class" else test_target):  # noqa: ANN001, ANN202
            return tf.data.Dataset.from_tensor_slices((dict(x), y)).batch(5)

        estimator.train(train_fn, steps=TRAIN_STEPS)
        predictions = _predictions(estimator, test_fn)
        metrics = {k: float(v) for k, v in estimator.evaluate(eval_fn, name="fixture").items()}
        _strip(model_dir)
        # Training on from TF's model_dir (a copy): what our continuation must reproduce.
        copy = model_dir + "_continued"
        shutil.copytree(model_dir, copy)
        config2 = config.replace(model_dir=copy)
        continued = eval(call, {**scope, "config": config2})
        continued.train(train_fn, steps=CONTINUE_STEPS)
        after = _predictions(continued, test_fn)
        step = int(continued.get_variable_value("global_step"))
        shutil.rmtree(copy)
        np.savez(os.path.join(model_dir, "predictions.npz"),
                 **predictions, **{f"continued/{k}": v for k, v in after.items()})
        with open(os.path.join(model_dir, "fixture.json"), "w") as f:
            json.dump({"call": call, "label": kind, "features": keys, "metrics": metrics, "continued_step": step,
                       "variables": tf.train.list_variables(model_dir)}, f, indent=1)
        summary[name] = sum(os.path.getsize(p) for p in glob.glob(os.path.join(model_dir, "*")))
        print(name, summary[name], "bytes")


# --------------------------------------------------------------------------------------
# Keras 2 files
# --------------------------------------------------------------------------------------


def keras_models(tf):  # noqa: ANN001, ANN201
    """name -> (model, inputs, targets): small models covering Dense, Conv2D,
    BatchNormalization, Embedding, LSTM, GRU (both reset_after), Bidirectional,
    TimeDistributed, and a multi-input / multi-output functional model."""
    layers = tf.keras.layers
    rng = np.random.default_rng(3)
    out = {}
    cnn = tf.keras.Sequential([
        layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 2), name="conv"),
        layers.BatchNormalization(name="bn"),
        layers.MaxPooling2D(2),
        layers.Flatten(),
        layers.Dense(5, activation="tanh", name="hidden"),
        layers.Dense(3, activation="softmax", name="probs"),
    ], name="cnn")
    x = rng.normal(size=(16, 8, 8, 2)).astype(np.float32)
    out["cnn"] = (cnn, x, rng.integers(0, 3, size=(16,)), "sparse_categorical_crossentropy")

    tokens = tf.keras.Input((6,), dtype="int32", name="tokens")
    numbers = tf.keras.Input((6, 2), name="numbers")
    embedded = layers.Embedding(20, 4, name="embed")(tokens)
    merged = layers.Concatenate(name="merge")([embedded, numbers])
    seq = layers.LSTM(5, return_sequences=True, name="lstm")(merged)
    seq = layers.GRU(4, return_sequences=True, name="gru")(seq)
    seq = layers.GRU(3, return_sequences=True, reset_after=False, name="gru_v1")(seq)
    per_step = layers.TimeDistributed(layers.Dense(2), name="per_step")(seq)
    summary = layers.Bidirectional(layers.LSTM(3), name="bilstm")(seq)
    score = layers.Dense(1, name="score")(summary)
    rnn = tf.keras.Model([tokens, numbers], [score, per_step], name="rnn")
    xs = [rng.integers(0, 20, size=(16, 6)).astype(np.int32), rng.normal(size=(16, 6, 2)).astype(np.float32)]
    ys = [rng.normal(size=(16, 1)).astype(np.float32), rng.normal(size=(16, 6, 2)).astype(np.float32)]
    out["rnn"] = (rnn, xs, ys, "mse")
    return out


def make_keras() -> None:
    import tensorflow as tf

    root = _fresh(os.path.join(ROOT, "keras"))
    tf.keras.utils.set_random_seed(5)
    for name, (model, x, y, loss) in keras_models(tf).items():
        model.compile(optimizer="adam", loss=loss)
        model.fit(x, y, epochs=1, batch_size=8, verbose=0)
        prediction = model.predict(x, verbose=0)
        prediction = prediction if isinstance(prediction, list) else [prediction]
        xs = x if isinstance(x, list) else [x]
        np.savez(os.path.join(root, f"{name}.npz"), **{f"x{i}": v for i, v in enumerate(xs)},
                 **{f"y{i}": v for i, v in enumerate(prediction)})
        model.save(os.path.join(root, f"{name}.h5"), save_format="h5")
        model.save_weights(os.path.join(root, f"{name}.weights.h5"))  # Keras 3's layout
        model.save_weights(os.path.join(root, f"{name}_legacy_weights.h5"))  # the legacy layout
        model.save(os.path.join(root, f"{name}.keras"))
        # TF-format weights (an object-based checkpoint) and a Keras SavedModel directory; its
        # saved_model.pb (TF's traced graphs, hundreds of KB, not read by torchestimator) is
        # removed to keep the fixture small: keras_metadata.pb + variables/ remain.
        model.save_weights(os.path.join(root, f"{name}_tf_weights", "ckpt"), save_format="tf")
        os.remove(os.path.join(root, f"{name}_tf_weights", "checkpoint"))
        saved = os.path.join(root, f"{name}_savedmodel")
        model.save(saved, save_format="tf")
        for extra in ("saved_model.pb", "fingerprint.pb"):
            if os.path.exists(os.path.join(saved, extra)):
                os.remove(os.path.join(saved, extra))
        shutil.rmtree(os.path.join(saved, "assets"), ignore_errors=True)
        print(name, {f: os.path.getsize(os.path.join(root, f)) for f in os.listdir(root) if f.startswith(name)})


if __name__ == "__main__":
    main(sys.argv[1:])
